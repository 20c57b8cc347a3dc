// SPDX-License-Identifier: MIT
/* lib/cache_folder.c: where a cache folder is (its variable, "off", else
 * under $HOME); a folder over its bound loses its files of the kind, least
 * recently used first, just enough; a file touched counts as used now;
 * other files, and a folder under its bound, are left alone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "cache_folder.h"

static char dir[] = "/tmp/ct-cache-bound-XXXXXX";

static void make(const char *name, size_t bytes, time_t when)
{
	char path[256];
	struct timespec ts[2] = { { when, 0 }, { when, 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	for (size_t i = 0; f && i < bytes; i++)
		fputc(0, f);
	if (f)
		fclose(f);
	utimensat(AT_FDCWD, path, ts, 0);
}

static bool there(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

int main(void)
{
	char path[256];
	int r;

	char where[256];

	setenv("HOME", "/home/someone", 1);
	unsetenv("CT_TEST_CACHE");
	ct_cache_dir(where, sizeof(where), "CT_TEST_CACHE", "things");
	ok_str(where, "/home/someone/.cache/cudatrace/things", "no variable: under $HOME");
	setenv("CT_TEST_CACHE", "/var/tmp/x", 1);
	ct_cache_dir(where, sizeof(where), "CT_TEST_CACHE", "things");
	ok_str(where, "/var/tmp/x", "the variable names the folder");
	setenv("CT_TEST_CACHE", "off", 1);
	ct_cache_dir(where, sizeof(where), "CT_TEST_CACHE", "things");
	ok_str(where, "", "off: none");
	unsetenv("CT_TEST_CACHE");
	unsetenv("HOME");
	ct_cache_dir(where, sizeof(where), "CT_TEST_CACHE", "things");
	ok_str(where, "", "neither: none");
	if (!mkdtemp(dir))
		return 1;
	make("a.idx", 1000, 1000);
	make("b.idx", 1000, 3000);
	make("c.idx", 1000, 2000);
	make("d.idx", 1000, 4000);
	make("other.txt", 5000, 10);
	r = ct_cache_bound(dir, ".idx", 4000);
	ok(r == 0 && there("a.idx") && there("d.idx"), "under its bound: nothing removed (%d)", r);
	r = ct_cache_bound(dir, ".idx", 2500);
	ok(r == 2 && !there("a.idx") && !there("c.idx") && there("b.idx") && there("d.idx"),
	   "over it: the two least recently used removed, oldest first (%d)", r);
	ok(there("other.txt"), "a file of another kind is left, whatever its size and age");
	snprintf(path, sizeof(path), "%s/b.idx", dir);
	ct_cache_touch(path);
	r = ct_cache_bound(dir, ".idx", 1000);
	ok(r == 1 && there("b.idx") && !there("d.idx"),
	   "a file touched counts as used now: the other goes (%d)", r);
	r = ct_cache_bound("/proc/no-such-folder", ".idx", 0);
	ok(r < 0, "a folder that is not there: an error (%d)", r);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path))
		return 1;
	return tap_done();
}

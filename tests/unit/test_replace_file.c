// SPDX-License-Identifier: MIT
/* lib/replace_file.c: the new contents replace the file whole; a write
 * that fails leaves the old file as it was and no temporary file. */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "replace_file.h"

static bool write_text(FILE *f, const void *ctx)
{
	return fputs(ctx, f) >= 0;
}

static bool write_fails(FILE *f, const void *ctx)
{
	fputs(ctx, f);
	return false;
}

static int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void read_back(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "r");

	out[0] = 0;
	if (f && fgets(out, (int)n, f) == NULL)
		out[0] = 0;
	if (f)
		fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/ct-replace-XXXXXX", path[256], got[64], cmd[300];
	int r;

	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/f", dir);
	r = ct_replace_file(path, write_text, "first");
	read_back(path, got, sizeof(got));
	ok(r == 0, "a new file written (%d)", r);
	ok_str(got, "first", "... with its contents");
	r = ct_replace_file(path, write_text, "second");
	read_back(path, got, sizeof(got));
	ok(r == 0 && !strcmp(got, "second"), "replaced whole (%d, %s)", r, got);
	r = ct_replace_file(path, write_fails, "third");
	read_back(path, got, sizeof(got));
	ok(r < 0 && !strcmp(got, "second") && files_in(dir) == 1,
	   "a write that fails: an error, the old file kept, no temporary left (%d, %s, %d files)",
	   r, got, files_in(dir));
	r = ct_replace_file("/proc/no-such-folder/f", write_text, "x");
	ok(r < 0, "a folder that cannot hold it: an error (%d)", r);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		return 1;
	return tap_done();
}

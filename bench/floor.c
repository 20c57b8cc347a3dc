// SPDX-License-Identifier: MIT
/*
 * floor OBJ PROG...: loads bench/floor.bpf.o, attaches the named programs,
 * says "floor: attached" on stderr and waits for SIGINT or SIGTERM.
 */
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	int i;

	if (argc < 3) {
		fprintf(stderr, "usage: floor OBJ PROG...\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "floor: cannot load %s\n", argv[1]);
		return 1;
	}
	for (i = 2; i < argc; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, argv[i]);

		if (!p || !bpf_program__attach(p)) {
			fprintf(stderr, "floor: cannot attach %s\n", argv[i]);
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "floor: attached\n");
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * costs OBJ [CALLS] [ROUNDS] [RING_MB]: what each piece of a traced call
 * costs on this machine.  Attaches the programs of bench/costs.bpf.c one at
 * a time, times CALLS getppid calls under each (and under none), ROUNDS
 * times over, alternating, and prints per piece the median of
 *   run_ns   the program's own time per run (bpf_stats)
 *   added_ns wall ns per call added over the "guard" program alone
 * The loop runs below 64 KiB of stack (the win_* pieces read up to 256
 * KiB above its stack pointer).  The ring is emptied between timed loops, as cudatrace's reader empties
 * it between its polls.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_PIECES 32
#define RECORD_BYTES (8 + 288)   /* ring_reserve's record with its header */

static const char *const pieces[] = {
	"guard", "ktime", "comm", "comm_direct", "fd_walk", "read_small", "read_both", "task_storage",
	"query", "ring_output", "ring_reserve", "ring_direct", "ring_dynptr", "stack_scratch_4k",
	"stack_ring_only_4k", "stack_ring_4k", "entry_now",
	"exit_raw", "exit_task_work", "win_16", "win_64", "win_256", "win_512", "win_2048",
	"win_4096", "win_8192", "win_32768", "win_task_512", "win_stack_256",
};
#define NPIECES (sizeof(pieces) / sizeof(pieces[0]))
_Static_assert(NPIECES <= MAX_PIECES, "raise MAX_PIECES");

struct cfg {
	uint32_t tgid;
	int32_t fd;
	uint64_t uaddr;
};

static char user_bytes[256];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) double loop_ns_here(long calls)
{
	uint64_t t0 = now_ns();

	for (long i = 0; i < calls; i++)
		syscall(SYS_getppid);
	return (double)(now_ns() - t0) / (double)calls;
}

/* The loop below 320 KiB of stack, written: the win_* pieces read up to
 * 256 KiB above the stack pointer (8 reads of 32 KiB), as -k's walk of a
 * deep stack reads through it. */
static __attribute__((noinline)) double loop_ns(long calls)
{
	volatile char below[320 * 1024];
	double ns;

	memset((char *)below, 1, sizeof(below));
	ns = loop_ns_here(calls);
	__asm__ volatile("" : : "r"(below) : "memory");
	return ns;
}

static int discard(void *ctx, void *data, size_t len)
{
	(void)ctx, (void)data, (void)len;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The program's total run time and count so far. */
static void prog_stats(struct bpf_program *p, uint64_t *ns, uint64_t *cnt)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	*ns = *cnt = 0;
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) {
		*ns = info.run_time_ns;
		*cnt = info.run_cnt;
	}
}

static struct bpf_object *open_costs(const char *path, long ring_mb)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_map *rodata, *m;
	struct cfg *cfg;
	size_t sz;
	int ncpu = libbpf_num_possible_cpus();

	if (!obj)
		return NULL;
	rodata = bpf_object__find_map_by_name(obj, ".rodata");
	cfg = rodata ? (struct cfg *)bpf_map__initial_value(rodata, &sz) : NULL;
	if (!cfg || sz < sizeof(*cfg))
		return NULL;
	cfg->tgid = (uint32_t)getpid();
	cfg->fd = open("/dev/null", O_RDONLY);
	cfg->uaddr = (uint64_t)(uintptr_t)user_bytes;
	m = bpf_object__find_map_by_name(obj, "scratch");
	if (m)
		bpf_map__set_max_entries(m, ncpu > 0 ? (uint32_t)ncpu : 1);
	m = bpf_object__find_map_by_name(obj, "rb");
	if (m)
		bpf_map__set_max_entries(m, (uint32_t)(ring_mb << 20));
	return bpf_object__load(obj) ? NULL : obj;
}

/*
 * Writes through the whole ring once with ring_reserve's records and
 * returns its ns per run: on a VM whose host backs guest memory lazily the
 * first write to each page of a fresh ring costs a host fault.  The rounds
 * that follow measure the ring as it is once written through.
 */
static double ring_first_pass(struct bpf_object *obj, struct ring_buffer *rb, long ring_mb)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, "ring_reserve");
	struct bpf_link *l = p ? bpf_program__attach(p) : NULL;
	long left = (ring_mb << 20) / RECORD_BYTES + 1, chunk = (ring_mb << 20) / RECORD_BYTES / 4;
	uint64_t ns0, c0, ns1, c1;

	if (!l)
		return 0;
	prog_stats(p, &ns0, &c0);
	for (; left > 0; left -= chunk) {
		loop_ns(chunk < left ? chunk : left);
		ring_buffer__consume(rb);
	}
	prog_stats(p, &ns1, &c1);
	bpf_link__destroy(l);
	return c1 > c0 ? (double)(ns1 - ns0) / (double)(c1 - c0) : 0;
}

int main(int argc, char **argv)
{
	long calls = argc > 2 ? atol(argv[2]) : 200000;
	int rounds = argc > 3 ? atoi(argv[3]) : 7;
	long ring_mb = argc > 4 ? atol(argv[4]) : 64;
	double wall[MAX_PIECES + 1][64], run[MAX_PIECES][64];
	struct bpf_object *obj;
	struct ring_buffer *rb;
	double first;
	int stats_fd;

	if (argc < 2 || calls <= 0 || rounds <= 0 || rounds > 64 || ring_mb <= 0) {
		fprintf(stderr, "usage: costs OBJ [CALLS] [ROUNDS<=64] [RING_MB]\n");
		return 2;
	}
	memset(user_bytes, 7, sizeof(user_bytes));
	obj = open_costs(argv[1], ring_mb);
	if (!obj) {
		fprintf(stderr, "costs: cannot load %s (needs root): %s\n", argv[1], strerror(errno));
		return 1;
	}
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0)
		fprintf(stderr, "costs: bpf_stats unavailable, run_ns will read 0\n");
	rb = ring_buffer__new(bpf_map__fd(bpf_object__find_map_by_name(obj, "rb")), discard,
			      NULL, NULL);
	if (!rb)
		return 1;
	first = ring_first_pass(obj, rb, ring_mb);
	for (int r = 0; r < rounds; r++) {
		wall[NPIECES][r] = loop_ns(calls);   /* nothing attached */
		for (size_t i = 0; i < NPIECES; i++) {
			struct bpf_program *p = bpf_object__find_program_by_name(obj, pieces[i]);
			struct bpf_link *l = p ? bpf_program__attach(p) : NULL;
			uint64_t ns0, c0, ns1, c1;

			if (!l) {
				fprintf(stderr, "costs: cannot attach %s\n", pieces[i]);
				return 1;
			}
			prog_stats(p, &ns0, &c0);
			wall[i][r] = loop_ns(calls);
			prog_stats(p, &ns1, &c1);
			bpf_link__destroy(l);
			run[i][r] = c1 > c0 ? (double)(ns1 - ns0) / (double)(c1 - c0) : 0;
			ring_buffer__consume(rb);
		}
	}
	printf("costs calls=%ld rounds=%d ring_mb=%ld bare_ns=%.1f ring_first_pass_run_ns=%.1f\n",
	       calls, rounds, ring_mb, median(wall[NPIECES], rounds), first);
	double guard = median(wall[0], rounds);
	for (size_t i = 0; i < NPIECES; i++)
		printf("costs piece=%s run_ns=%.1f added_ns=%.1f\n", pieces[i],
		       median(run[i], rounds), median(wall[i], rounds) - guard);
	ring_buffer__free(rb);
	bpf_object__close(obj);
	return 0;
}

// SPDX-License-Identifier: MIT
/*
 * rusage_run: run a command and write its peak RSS and CPU time to a file,
 * for `make bench`.
 *
 *   rusage_run OUTFILE COMMAND [ARGS...]
 *
 * OUTFILE gets one line, "maxrss_kb K utime_s U stime_s S", from wait4(2):
 * COMMAND and every descendant it waited for (ru_maxrss is the largest of
 * them, the times are summed).  Why not measure from the Python harness
 * directly: Linux carries a process's peak RSS across execve, so anything
 * forked from a 25 MB Python reports at least 25 MB; this small program
 * forks COMMAND from its own small image.  SIGINT, SIGTERM and SIGHUP are
 * passed on to COMMAND; the exit status is COMMAND's (128+N for signal N).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child = -1;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rusage_run OUTFILE COMMAND [ARGS...]\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = forward };
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "rusage_run: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	child = pid;
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("wait4");
			return 2;
		}
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	fprintf(f, "maxrss_kb %ld utime_s %ld.%06ld stime_s %ld.%06ld\n", ru.ru_maxrss,
		(long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
		(long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

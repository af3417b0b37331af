/* tree N: this process and N-1 children, all in this process's group, each
 * paused with an alarm so that nothing outlives the benchmark. The PIDs are
 * printed on one line of stdout ("pids P1 P2 ...\n", the leader first) once
 * every child has been forked. Used by scripts/bench/run.sh. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ALARM_S 600 /* bound on the life of every process of the tree */

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 1;
	if (n < 1 || n > 20000) {
		fprintf(stderr, "tree: N must be 1..20000\n");
		return 2;
	}
	alarm(ALARM_S);
	pid_t *pids = calloc((size_t)n, sizeof(pid_t));
	if (!pids)
		return 1;
	pids[0] = getpid();
	for (int i = 1; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			perror("tree: fork");
			return 1;
		}
		if (p == 0) {
			close(1);
			alarm(ALARM_S);
			for (;;)
				pause();
		}
		pids[i] = p;
	}
	printf("pids");
	for (int i = 0; i < n; i++)
		printf(" %d", (int)pids[i]);
	printf("\n");
	fflush(stdout);
	for (;;)
		pause();
}

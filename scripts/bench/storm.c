/* storm MAX INTERVAL_US: a bounded fork storm in this process's group. Every
 * process sleeps INTERVAL_US, then forks again while the group-wide count of
 * forks (shared memory) is below MAX; past MAX it pauses. Each process has an
 * alarm, so the storm ends on its own after ALARM_S at the latest. Prints
 * "pids LEADER\n" once it starts. Used by scripts/bench/run.sh. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define ALARM_S 10 /* bound on the life of every process of the storm */

int main(int argc, char **argv) {
	long max = argc > 1 ? atol(argv[1]) : 2000;
	long interval = argc > 2 ? atol(argv[2]) : 20000;
	if (max < 1 || max > 2000 || interval < 100) {
		fprintf(stderr, "storm: MAX must be 1..2000, INTERVAL_US >= 100\n");
		return 2;
	}
	long *forks = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (forks == MAP_FAILED)
		return 1;
	alarm(ALARM_S);
	printf("pids %d\n", (int)getpid());
	fflush(stdout);
	int leader = 1;
	for (;;) {
		usleep((useconds_t)interval);
		if (__sync_fetch_and_add(forks, 1) >= max)
			break;
		pid_t p = fork();
		if (p == 0) {
			if (leader)
				close(1);
			leader = 0;
			alarm(ALARM_S);
		}
	}
	for (;;)
		pause();
}

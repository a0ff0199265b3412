/*
 * proc.h - CPU time of another process or thread, from /proc: what a
 * spawned server (and its worker processes) or a server thread of benchtop's
 * own spent, measured the way top and pidstat do.
 */
#ifndef BT_CORE_PROC_H
#define BT_CORE_PROC_H

#include <stdint.h>

/*
 * User and system CPU time of process pid (tid 0) or of its thread tid, in
 * ns, from utime and stime (fields 14 and 15) of /proc/PID[/task/TID]/stat.
 * 0, or negative errno (the process is gone: -ENOENT).
 */
int bt_proc_cpu(int pid, int tid, uint64_t *user_ns, uint64_t *sys_ns);

/*
 * The same for pid plus its living children (their /proc/PID/stat, not a
 * waited-for total): a server whose work is done in worker processes, such
 * as nginx's. Children that have exited are no longer counted.
 */
int bt_proc_cpu_tree(int pid, uint64_t *user_ns, uint64_t *sys_ns);

#endif

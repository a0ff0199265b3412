/*
 * sysinfo.h - the machine a run happened on. Every recording carries it, so
 * a number can always be traced to the hardware, kernel and libraries that
 * produced it.
 */
#ifndef BT_CORE_SYSINFO_H
#define BT_CORE_SYSINFO_H

#include <stddef.h>
#include <stdint.h>

struct bt_sysinfo {
	char host[64];
	char cpu_model[128];
	char arch[16];
	int logical_cpus;	/* online CPUs */
	int allowed_cpus;	/* CPUs in this process's affinity mask */
	int physical_cores;
	int packages;
	int numa_nodes;
	int smt;		/* hardware threads per core */
	char governor[32];	/* cpufreq governor of cpu0, "unknown" when absent */
	char kernel[128];	/* uname -s -r -v */
	uint64_t mem_total;	/* bytes */
	char cpu_flags[64];	/* notable ISA flags present: "aes sha_ni avx2 ..." */
	char compiler[64];
	char libc[32];
	char openssl[64];
	char libmemcached[32];
	char hiredis[32];
	char ncurses[32];
	char jansson[32];
	char hwloc[32];
	char benchtop[32];
	/*
	 * The machine check's facts (machine.h), judged by bt_machine_check.
	 * Recordings made before them read back "" (steal_pct -1): unknown.
	 */
	char virt[32];		/* hypervisor: "none", "kvm", "vmware", "xen", "microsoft", ... */
	char container[16];	/* "none", "docker", "podman", "lxc", ... */
	double steal_pct;	/* steal since boot, % of all CPU time; -1 unknown */
	char boost[8];		/* turbo / boost: "on", "off", "n/a" */
	char thp[16];		/* transparent huge pages: "always", "madvise", "never", "n/a" */
	char aslr[8];		/* kernel.randomize_va_space: "0", "1", "2", "n/a" */
	char perf_paranoid[8];	/* kernel.perf_event_paranoid, "n/a" */
	char isolated[64];	/* isolated CPUs (isolcpus=), "none" */
	char nohz_full[64];	/* tickless CPUs (nohz_full=), "none" */
	char clocksource[32];	/* the kernel's current clock source, "n/a" */
};

/*
 * Fill si from /proc, /sys, uname, hwloc and the libraries' version calls,
 * and the machine check's facts (bt_machine_collect). 0 or -errno.
 */
int bt_sysinfo_collect(struct bt_sysinfo *si);

/*
 * The fields that differ between a and b, as "field: a -> b" lines joined by
 * '\n' into buf (empty when they match on everything that affects numbers:
 * cpu_model, logical_cpus, allowed_cpus, physical_cores, smt, governor,
 * kernel, compiler, library versions, the machine check's settings; not
 * host, mem_total or steal_pct). A text field one side does not have (a
 * recording older than the field) is not a difference. Returns the number
 * of differences.
 */
int bt_sysinfo_diff(const struct bt_sysinfo *a, const struct bt_sysinfo *b, char *buf, size_t n);

/*
 * Field table for (de)serializers: name, offset, kind ('s' char array with
 * size, 'i' int, 'u' uint64, 'd' double; a reader leaves a missing 'd' at -1).
 */
struct bt_sysinfo_field {
	const char *name;
	size_t off;
	char kind;
	size_t size;
};
extern const struct bt_sysinfo_field bt_sysinfo_fields[];
extern const size_t bt_sysinfo_nfields;

/*
 * Memory the kernel says a new allocation can have without swapping
 * (MemAvailable, bytes); 0 when it cannot be read. For workloads that
 * allocate by a parameter (cipher size=) to refuse before they start.
 */
uint64_t bt_sysinfo_mem_available(void);

#endif

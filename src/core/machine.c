/*
 * machine.c - the machine check (see machine.h): facts read from files,
 * judged with one line of advice each. It changes nothing and runs nothing.
 */
#include "core/machine.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "core/noise.h"

/* ---- parsers ------------------------------------------------------------- */

void bt_machine_parse_choice(const char *text, char *out, size_t n)
{
	const char *open = strchr(text, '['), *close = open ? strchr(open, ']') : NULL;
	size_t len;

	if (open != NULL && close != NULL) {
		text = open + 1;
		len = (size_t)(close - text);
	} else {
		while (isspace((unsigned char)*text))
			text++;
		len = strcspn(text, " \t\n");
	}
	if (len >= n)
		len = n - 1;
	memcpy(out, text, len);
	out[len] = '\0';
}

int bt_machine_cmdline_value(const char *cmdline, const char *key, char *out, size_t n)
{
	size_t klen = strlen(key);
	int found = 0;

	out[0] = '\0';
	/* Words are blank-separated; the last occurrence wins, as in the kernel. */
	for (const char *p = cmdline; *p;) {
		size_t wlen;

		while (isspace((unsigned char)*p))
			p++;
		wlen = strcspn(p, " \t\n");
		if (wlen == 2 && strncmp(p, "--", 2) == 0)
			break;	/* what follows "--" is for init, not the kernel */
		if (wlen > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			size_t vlen = wlen - klen - 1;

			if (vlen >= n)
				vlen = n - 1;
			memcpy(out, p + klen + 1, vlen);
			out[vlen] = '\0';
			found = 1;
		}
		p += wlen;
	}
	return found;
}

int bt_machine_parse_pid_stat(const char *text, char *comm, size_t n, uint64_t *ticks)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	unsigned long long ut, st;
	size_t len;

	if (open == NULL || close == NULL || close < open)
		return -EINVAL;
	len = (size_t)(close - open - 1);
	if (len >= n)
		len = n - 1;
	memcpy(comm, open + 1, len);
	comm[len] = '\0';
	/* After ") ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -EINVAL;
	*ticks = ut + st;
	return 0;
}

const char *bt_machine_cpuid_virt(const char *sig)
{
	static const struct {
		const char *sig, *name;
	} tab[] = {
		{ "KVMKVMKVM", "kvm" }, { "Linux KVM Hv", "kvm" }, { "TCGTCGTCGTCG", "qemu" },
		{ "XenVMMXenVMM", "xen" }, { "VMwareVMware", "vmware" }, { "Microsoft Hv", "microsoft" },
		{ "bhyve bhyve ", "bhyve" }, { "QNXQVMBSQG", "qnx" }, { "ACRNACRNACRN", "acrn" },
		{ "SRESRESRESRE", "sre" }, { "Apple VZ", "apple" },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strncmp(sig, tab[i].sig, strlen(tab[i].sig)) == 0)
			return tab[i].name;
	return NULL;
}

/* systemd-detect-virt's DMI vendor table, matched as prefixes. */
const char *bt_machine_dmi_virt(const char *sys_vendor, const char *product_name,
				const char *bios_vendor)
{
	static const struct {
		const char *prefix, *name;
	} tab[] = {
		{ "KVM", "kvm" }, { "OpenStack", "kvm" }, { "KubeVirt", "kvm" },
		{ "Amazon EC2", "amazon" }, { "QEMU", "qemu" }, { "VMware", "vmware" },
		{ "VMW", "vmware" }, { "innotek GmbH", "oracle" }, { "VirtualBox", "oracle" },
		{ "Oracle Corporation", "oracle" }, { "Xen", "xen" }, { "Bochs", "bochs" },
		{ "Parallels", "parallels" }, { "BHYVE", "bhyve" }, { "Hyper-V", "microsoft" },
		{ "Apple Virtualization", "apple" }, { "Google Compute Engine", "google" },
		{ "Google", "google" },
	};
	const char *fields[3] = { product_name, sys_vendor, bios_vendor };

	for (int f = 0; f < 3; f++) {
		if (fields[f] == NULL)
			continue;
		for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
			if (strncmp(fields[f], tab[i].prefix, strlen(tab[i].prefix)) == 0)
				return tab[i].name;
	}
	/* Hyper-V names itself only through the pair. */
	if (sys_vendor != NULL && product_name != NULL &&
	    strncmp(sys_vendor, "Microsoft Corporation", 21) == 0 &&
	    strncmp(product_name, "Virtual Machine", 15) == 0)
		return "microsoft";
	return NULL;
}

/* ---- reading the machine ------------------------------------------------ */

/* The first line of a small file without its newline; "" when unreadable. */
static void first_line(const char *path, char *buf, size_t n)
{
	char *text = bt_noise_slurp(path, 4096);
	size_t len;

	buf[0] = '\0';
	if (text == NULL)
		return;
	len = strcspn(text, "\n");
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	if (len >= n)
		len = n - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	free(text);
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* The cpuid hypervisor signature ("" when there is none, or not x86). */
static void cpuid_signature(char sig[13])
{
	sig[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned a, b, c, d;

		if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
			return;	/* bit 31 of ecx: "a hypervisor is present" */
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = '\0';
		if (sig[0] == '\0')
			snprintf(sig, 13, "?");
	}
#endif
}

/*
 * Which hypervisor, in systemd-detect-virt's order of trust: DMI names the
 * product (amazon rather than its kvm), then cpuid's signature, then Xen's
 * sysfs node, then the "hypervisor" cpu flag without a name.
 */
static void read_virt(struct bt_sysinfo *si)
{
	char vendor[128], product[128], bios[128], sig[13], *cpuinfo;
	const char *name;

	first_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	first_line("/sys/class/dmi/id/product_name", product, sizeof(product));
	first_line("/sys/class/dmi/id/bios_vendor", bios, sizeof(bios));
	name = bt_machine_dmi_virt(vendor, product, bios);
	if (name == NULL) {
		cpuid_signature(sig);
		if (sig[0])
			name = bt_machine_cpuid_virt(sig) ? bt_machine_cpuid_virt(sig) : "vm";
	}
	if (name == NULL) {
		char type[32];

		first_line("/sys/hypervisor/type", type, sizeof(type));
		if (strcmp(type, "xen") == 0)
			name = "xen";
	}
	if (name == NULL && (cpuinfo = bt_noise_slurp("/proc/cpuinfo", 1u << 20)) != NULL) {
		if (strstr(cpuinfo, " hypervisor") != NULL)
			name = "vm";
		free(cpuinfo);
	}
	snprintf(si->virt, sizeof(si->virt), "%s", name ? name : "none");
}

/* Containers, as systemd-detect-virt --container finds them (by files only). */
static void read_container(struct bt_sysinfo *si)
{
	char buf[64];
	char *env;

	first_line("/run/systemd/container", buf, sizeof(buf));
	if (buf[0] == '\0' && (env = bt_noise_slurp("/proc/1/environ", 1u << 16)) != NULL) {
		/* NUL-separated VAR=value entries; the slurp ends at the last one. */
		for (const char *p = env; *p; p += strlen(p) + 1)
			if (strncmp(p, "container=", 10) == 0)
				snprintf(buf, sizeof(buf), "%s", p + 10);
		free(env);
	}
	if (buf[0] == '\0' && exists("/run/.containerenv"))
		snprintf(buf, sizeof(buf), "podman");
	if (buf[0] == '\0' && exists("/.dockerenv"))
		snprintf(buf, sizeof(buf), "docker");
	snprintf(si->container, sizeof(si->container), "%s", buf[0] ? buf : "none");
}

static void read_boost(struct bt_sysinfo *si)
{
	char v[16];

	first_line("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v));
	if (v[0]) {
		snprintf(si->boost, sizeof(si->boost), "%s", strcmp(v, "0") ? "on" : "off");
		return;
	}
	first_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v));
	snprintf(si->boost, sizeof(si->boost), "%s", v[0] == '\0' ? "n/a" : strcmp(v, "0") ? "off" : "on");
}

/* A CPU list file: its content, "none" when empty or absent. */
static void read_cpulist(const char *path, char *out, size_t n)
{
	first_line(path, out, n);
	if (out[0] == '\0' || strcmp(out, "(null)") == 0)
		snprintf(out, n, "none");
}

static void read_or_na(const char *path, char *out, size_t n)
{
	first_line(path, out, n);
	if (out[0] == '\0')
		snprintf(out, n, "n/a");
}

void bt_machine_collect(struct bt_sysinfo *si)
{
	char *text, line[256], val[64];
	struct bt_cpu_ticks t;

	read_virt(si);
	read_container(si);
	si->steal_pct = -1;
	if ((text = bt_noise_slurp("/proc/stat", 1u << 20)) != NULL) {
		if (bt_noise_parse_stat(text, &t) == 0 && t.total > 0)
			si->steal_pct = 100.0 * (double)t.steal / (double)t.total;
		free(text);
	}
	read_boost(si);
	first_line("/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof(line));
	bt_machine_parse_choice(line, si->thp, sizeof(si->thp));
	if (si->thp[0] == '\0')
		snprintf(si->thp, sizeof(si->thp), "n/a");
	read_or_na("/proc/sys/kernel/randomize_va_space", si->aslr, sizeof(si->aslr));
	read_or_na("/proc/sys/kernel/perf_event_paranoid", si->perf_paranoid, sizeof(si->perf_paranoid));
	read_cpulist("/sys/devices/system/cpu/isolated", si->isolated, sizeof(si->isolated));
	read_cpulist("/sys/devices/system/cpu/nohz_full", si->nohz_full, sizeof(si->nohz_full));
	/* Older kernels have no nohz_full file: the command line says it. */
	if (strcmp(si->nohz_full, "none") == 0 &&
	    (text = bt_noise_slurp("/proc/cmdline", 1u << 16)) != NULL) {
		if (bt_machine_cmdline_value(text, "nohz_full", val, sizeof(val)))
			snprintf(si->nohz_full, sizeof(si->nohz_full), "%s", val);
		free(text);
	}
	read_or_na("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		   si->clocksource, sizeof(si->clocksource));
}

/* ---- busy processes ------------------------------------------------------ */

struct proc_ticks {
	int pid;
	uint64_t ticks;
	char comm[32];
};

/* Every process's CPU ticks now (this process left out); *n entries. */
static struct proc_ticks *scan_procs(int *n)
{
	DIR *d = opendir("/proc");
	struct proc_ticks *v = NULL, *grown;
	struct dirent *e;
	int cap = 0, self = (int)getpid();

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		char path[64], *text;
		int pid = atoi(e->d_name);

		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if ((text = bt_noise_slurp(path, 4096)) == NULL)
			continue;	/* gone already */
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			grown = realloc(v, (size_t)cap * sizeof(*v));
			if (grown == NULL) {
				free(text);
				break;
			}
			v = grown;
		}
		if (bt_machine_parse_pid_stat(text, v[*n].comm, sizeof(v[*n].comm), &v[*n].ticks) == 0) {
			v[*n].pid = pid;
			(*n)++;
		}
		free(text);
	}
	closedir(d);
	return v;
}

int bt_machine_busy(int interval_ms, double min_pct, struct bt_busy *b)
{
	struct proc_ticks *a, *z = NULL;
	struct bt_noise noise;
	struct bt_noise_out nout;
	struct timespec ts = { interval_ms / 1000, (long)(interval_ms % 1000) * 1000000L };
	long hz = sysconf(_SC_CLK_TCK);
	int na, nz, ret = 0;

	memset(b, 0, sizeof(*b));
	b->steal_pct = -1;
	bt_noise_begin(&noise);
	a = scan_procs(&na);
	if (a == NULL) {
		ret = -ENOENT;
		goto out;
	}
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	z = scan_procs(&nz);
	bt_noise_end(&noise, &nout);
	b->measured = 1;
	b->interval_s = nout.seconds;
	b->steal_pct = nout.steal_pct;
	for (int i = 0; i < nz && hz > 0 && b->interval_s > 0; i++) {
		double pct;
		int k;

		/* Both lists are in readdir order; a pid present in both is the same process. */
		for (k = 0; k < na && a[k].pid != z[i].pid; k++)
			;
		if (k == na || z[i].ticks < a[k].ticks)
			continue;
		pct = 100.0 * (double)(z[i].ticks - a[k].ticks) / (double)hz / b->interval_s;
		if (pct < min_pct)
			continue;
		/* Insert into the top list, largest first. */
		if (b->n < BT_BUSY_MAX)
			k = b->n++;
		else if (pct > b->top[BT_BUSY_MAX - 1].cpu_pct)
			k = BT_BUSY_MAX - 1;
		else
			continue;
		for (; k > 0 && b->top[k - 1].cpu_pct < pct; k--)
			b->top[k] = b->top[k - 1];
		b->top[k].pid = z[i].pid;
		b->top[k].cpu_pct = pct;
		snprintf(b->top[k].comm, sizeof(b->top[k].comm), "%s", z[i].comm);
	}
out:
	free(a);
	free(z);
	return ret;
}

/* ---- judging ------------------------------------------------------------- */

const char *bt_check_level_name(enum bt_check_level l)
{
	return l == BT_CHECK_OK ? "ok" : l == BT_CHECK_INFO ? "info" : "warn";
}

__attribute__((format(printf, 4, 5)))
static struct bt_check *add(struct bt_check_list *l, const char *name, enum bt_check_level lv,
			    const char *value_fmt, ...)
{
	struct bt_check *c;
	va_list ap;

	if (l->n >= BT_CHECK_MAX)
		return &l->item[BT_CHECK_MAX - 1];	/* never: the list below is shorter */
	c = &l->item[l->n++];
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->level = lv;
	va_start(ap, value_fmt);
	vsnprintf(c->value, sizeof(c->value), value_fmt, ap);
	va_end(ap);
	l->nwarn += lv == BT_CHECK_WARN;
	l->ninfo += lv == BT_CHECK_INFO;
	return c;
}

#define HINT(c, ...) snprintf((c)->hint, sizeof((c)->hint), __VA_ARGS__)
#define BRIEF(c, ...) snprintf((c)->brief, sizeof((c)->brief), __VA_ARGS__)

static void check_vm(const struct bt_sysinfo *si, const struct bt_busy *busy, struct bt_check_list *l)
{
	struct bt_check *c;
	char steal[64] = "steal unknown", now[48] = "";

	if (si->virt[0] == '\0')
		return;
	if (si->steal_pct >= 0)
		snprintf(steal, sizeof(steal), "steal %.2f%% of CPU time since boot", si->steal_pct);
	if (busy != NULL && busy->measured && busy->steal_pct >= 0)
		snprintf(now, sizeof(now), ", %.1f%% over %.0f ms", busy->steal_pct,
			 busy->interval_s * 1000);
	if (strcmp(si->virt, "none") == 0) {
		c = add(l, "vm", BT_CHECK_OK, "no hypervisor found");
		HINT(c, "bare metal: no neighbour can steal CPU time");
	} else {
		int much = si->steal_pct >= 1 || (busy && busy->measured && busy->steal_pct >= 1);

		c = add(l, "vm", much ? BT_CHECK_WARN : BT_CHECK_INFO, "%s VM, %s%s", si->virt, steal, now);
		HINT(c, "a VM: the host's other guests take CPU time (steal); compare figures from the same VM, "
			"and trust reps whose steal is near 0");
		BRIEF(c, "%s VM, steal %.1f%%", si->virt, si->steal_pct >= 0 ? si->steal_pct : 0);
	}
	if (si->container[0] && strcmp(si->container, "none") != 0) {
		c = add(l, "container", BT_CHECK_INFO, "%s", si->container);
		HINT(c, "in a container: a cgroup CPU quota can throttle a run (see /sys/fs/cgroup/cpu.max)");
	}
}

static void check_cpu(const struct bt_sysinfo *si, struct bt_check_list *l)
{
	struct bt_check *c;

	if (si->governor[0] == '\0' || strcmp(si->governor, "unknown") == 0) {
		c = add(l, "governor", BT_CHECK_INFO, "no cpufreq driver");
		HINT(c, "the frequency is not under this kernel's control (usual in a VM): nothing to set");
	} else if (strcmp(si->governor, "performance") == 0) {
		c = add(l, "governor", BT_CHECK_OK, "performance");
		HINT(c, "the CPUs stay at their highest frequency");
	} else {
		c = add(l, "governor", BT_CHECK_WARN, "%s", si->governor);
		HINT(c, "the frequency follows the load, so short runs are slower: "
			"cpupower frequency-set -g performance");
		BRIEF(c, "governor %s", si->governor);
	}
	if (si->boost[0] != '\0') {
		if (strcmp(si->boost, "on") == 0) {
			c = add(l, "boost", BT_CHECK_WARN, "on");
			HINT(c, "turbo speed depends on temperature and on how many cores are busy: "
				"echo 0 > /sys/devices/system/cpu/cpufreq/boost (intel_pstate: echo 1 > .../no_turbo)");
			BRIEF(c, "boost on");
		} else if (strcmp(si->boost, "off") == 0) {
			c = add(l, "boost", BT_CHECK_OK, "off");
			HINT(c, "the frequency does not depend on temperature");
		} else {
			c = add(l, "boost", BT_CHECK_INFO, "not exposed");
			HINT(c, "no boost control here (usual in a VM)");
		}
	}
	if (si->smt > 1) {
		c = add(l, "smt", BT_CHECK_INFO, "%d threads per core", si->smt);
		HINT(c, "siblings share one core's units: pin=compact packs them, pin=scatter avoids them "
			"(echo off > /sys/devices/system/cpu/smt/control turns SMT off)");
	} else if (si->smt == 1) {
		c = add(l, "smt", BT_CHECK_OK, "one thread per core");
		HINT(c, "no sibling shares a core");
	}
}

static void check_kernel(const struct bt_sysinfo *si, struct bt_check_list *l)
{
	struct bt_check *c;

	if (si->thp[0] != '\0') {
		if (strcmp(si->thp, "always") == 0) {
			c = add(l, "thp", BT_CHECK_WARN, "always");
			HINT(c, "khugepaged merges pages in the background, so memory-heavy runs vary: "
				"echo madvise > /sys/kernel/mm/transparent_hugepage/enabled");
			BRIEF(c, "THP always");
		} else if (strcmp(si->thp, "n/a") == 0) {
			c = add(l, "thp", BT_CHECK_INFO, "not exposed");
			HINT(c, "no transparent huge pages setting found");
		} else {
			c = add(l, "thp", BT_CHECK_OK, "%s", si->thp);
			HINT(c, "huge pages only where a program asks for them");
		}
	}
	if (si->aslr[0] != '\0') {
		if (strcmp(si->aslr, "0") == 0) {
			c = add(l, "aslr", BT_CHECK_INFO, "off (0)");
			HINT(c, "one memory layout every run: steadier, but figures may hold for this layout only");
		} else if (strcmp(si->aslr, "n/a") == 0) {
			c = add(l, "aslr", BT_CHECK_INFO, "not exposed");
			HINT(c, "kernel.randomize_va_space is not readable");
		} else {
			c = add(l, "aslr", BT_CHECK_OK, "on (%s)", si->aslr);
			HINT(c, "the layout differs run to run, as in production: compare medians of several reps");
		}
	}
	if (si->perf_paranoid[0] != '\0') {
		int v = atoi(si->perf_paranoid);

		if (strcmp(si->perf_paranoid, "n/a") == 0) {
			c = add(l, "perf", BT_CHECK_INFO, "perf_event_paranoid not exposed");
			HINT(c, "no perf events in this kernel (or hidden)");
		} else if (v <= 1) {
			c = add(l, "perf", BT_CHECK_OK, "perf_event_paranoid %d", v);
			HINT(c, "perf can count CPU events of your processes, kernel included");
		} else if (v == 2) {
			c = add(l, "perf", BT_CHECK_INFO, "perf_event_paranoid 2");
			HINT(c, "perf counts user space only; for kernel time too: sysctl kernel.perf_event_paranoid=1");
		} else {
			c = add(l, "perf", BT_CHECK_WARN, "perf_event_paranoid %d", v);
			HINT(c, "perf is closed to users: sysctl kernel.perf_event_paranoid=2");
			BRIEF(c, "perf closed");
		}
	}
	if (si->isolated[0] != '\0') {
		int iso = strcmp(si->isolated, "none") != 0, nohz = strcmp(si->nohz_full, "none") != 0 &&
								    si->nohz_full[0] != '\0';

		if (iso || nohz) {
			c = add(l, "isolation", BT_CHECK_OK, "isolcpus %s, nohz_full %s", si->isolated,
				si->nohz_full[0] ? si->nohz_full : "none");
			HINT(c, "pin the workers to the isolated CPUs: pin=list:%s", iso ? si->isolated : si->nohz_full);
		} else {
			c = add(l, "isolation", BT_CHECK_INFO, "no isolated CPUs");
			HINT(c, "every task may run on the benchmark's CPUs; for quiet ones boot with "
				"isolcpus=LIST nohz_full=LIST and pin=list:LIST");
		}
	}
}

static void check_busy(const struct bt_busy *b, struct bt_check_list *l)
{
	struct bt_check *c;
	char who[96] = "";
	size_t o = 0;

	if (b == NULL || !b->measured)
		return;
	if (b->n == 0) {
		c = add(l, "busy", BT_CHECK_OK, "no other process used the CPU over %.0f ms",
			b->interval_s * 1000);
		HINT(c, "the machine is quiet");
		return;
	}
	for (int i = 0; i < b->n && o < sizeof(who); i++)
		o += (size_t)snprintf(who + o, sizeof(who) - o, "%s%s (%d) %.0f%%", i ? ", " : "",
				      b->top[i].comm, b->top[i].pid, b->top[i].cpu_pct);
	c = add(l, "busy", BT_CHECK_WARN, "%s", who);
	HINT(c, "these used the CPU over %.0f ms: their time comes out of the benchmark's; "
		"stop them or run when they are idle", b->interval_s * 1000);
	BRIEF(c, "%d busy process%s", b->n, b->n == 1 ? "" : "es");
}

static void check_clock(const struct bt_sysinfo *si, double timer_ns, struct bt_check_list *l)
{
	static const char *const fast[] = {
		"tsc", "kvm-clock", "arch_sys_counter", "hyperv_clocksource_tsc_page", "xen", "riscv_clocksource",
		"timebase", NULL,
	};
	static const char *const slow[] = { "hpet", "acpi_pm", "jiffies", "pit", "refined-jiffies", NULL };
	struct bt_check *c;
	int k;

	if (si->clocksource[0] != '\0') {
		for (k = 0; fast[k] && strcmp(fast[k], si->clocksource); k++)
			;
		if (fast[k] != NULL) {
			c = add(l, "clocksource", BT_CHECK_OK, "%s", si->clocksource);
			HINT(c, "read without a system call (vDSO)");
		} else {
			for (k = 0; slow[k] && strcmp(slow[k], si->clocksource); k++)
				;
			c = add(l, "clocksource", slow[k] ? BT_CHECK_WARN : BT_CHECK_INFO, "%s",
				si->clocksource);
			HINT(c, slow[k] ? "every clock read is a slow device access; the tsc is far cheaper "
					  "where it is stable (clocksource=tsc on the kernel command line)"
					: "an unusual clock source: see the measured timer cost");
			if (slow[k])
				BRIEF(c, "clock %s", si->clocksource);
		}
	}
	if (timer_ns > 0) {
		enum bt_check_level lv = timer_ns <= 50 ? BT_CHECK_OK : timer_ns <= 200 ? BT_CHECK_INFO
										     : BT_CHECK_WARN;

		c = add(l, "timer", lv, "%.1f ns per clock read", timer_ns);
		HINT(c, "timing an op costs two reads: under ~%.0f ns per op that is over 5 %%, "
			"so time 1 op in N there (lat_every=)", timer_ns * 40);
		if (lv == BT_CHECK_WARN)
			BRIEF(c, "timer %.0f ns", timer_ns);
	}
}

void bt_machine_check(const struct bt_sysinfo *si, double timer_ns, const struct bt_busy *busy,
		      struct bt_check_list *out)
{
	memset(out, 0, sizeof(*out));
	check_vm(si, busy, out);
	check_cpu(si, out);
	check_kernel(si, out);
	check_busy(busy, out);
	check_clock(si, timer_ns, out);
}

void bt_machine_summary(const struct bt_sysinfo *si, double timer_ns, char *buf, size_t n)
{
	struct bt_check_list l;
	size_t o = 0;
	int nw = 0;

	if (n == 0)
		return;
	buf[0] = '\0';
	if (si->virt[0] == '\0') {
		snprintf(buf, n, "not recorded");
		return;
	}
	bt_machine_check(si, timer_ns, NULL, &l);
	if (strcmp(si->virt, "none") != 0)
		o += (size_t)snprintf(buf + o, n - o, "%s VM, steal %.2f%% so far", si->virt,
				      si->steal_pct >= 0 ? si->steal_pct : 0);
	for (int i = 0; i < l.n && o < n; i++) {
		const struct bt_check *c = &l.item[i];

		if (c->level != BT_CHECK_WARN || strcmp(c->name, "vm") == 0)
			continue;
		o += (size_t)snprintf(buf + o, n - o, "%s%s", nw ? ", " : o ? "; warnings: " : "warnings: ",
				      c->brief[0] ? c->brief : c->name);
		nw++;
	}
	if (nw == 0 && o < n)
		snprintf(buf + o, n - o, "%sno warnings", o ? "; " : "");
}

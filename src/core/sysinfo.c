/*
 * sysinfo.c - describe the machine: CPU, topology, governor, kernel, memory,
 * compiler and library versions. Everything here is read once per session,
 * so it favours plain, robust parsing over speed.
 */
#include "core/sysinfo.h"

#include <ctype.h>
#include <errno.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <hwloc.h>
#include <openssl/crypto.h>

#include "bt_config.h"
#include "core/machine.h"

/* Optional libraries (meson_options.txt) have a version only when built in. */
#ifndef BT_VER_LIBMEMCACHED
#define BT_VER_LIBMEMCACHED "not built"
#endif
#ifndef BT_VER_HIREDIS
#define BT_VER_HIREDIS "not built"
#endif

#define F(name, kind) { #name, offsetof(struct bt_sysinfo, name), kind, \
			sizeof(((struct bt_sysinfo *)0)->name) }

const struct bt_sysinfo_field bt_sysinfo_fields[] = {
	F(host, 's'),
	F(cpu_model, 's'),
	F(arch, 's'),
	F(logical_cpus, 'i'),
	F(allowed_cpus, 'i'),
	F(physical_cores, 'i'),
	F(packages, 'i'),
	F(numa_nodes, 'i'),
	F(smt, 'i'),
	F(governor, 's'),
	F(kernel, 's'),
	F(mem_total, 'u'),
	F(cpu_flags, 's'),
	F(compiler, 's'),
	F(libc, 's'),
	F(openssl, 's'),
	F(libmemcached, 's'),
	F(hiredis, 's'),
	F(ncurses, 's'),
	F(jansson, 's'),
	F(hwloc, 's'),
	F(benchtop, 's'),
	F(virt, 's'),
	F(container, 's'),
	F(steal_pct, 'd'),
	F(boost, 's'),
	F(thp, 's'),
	F(aslr, 's'),
	F(perf_paranoid, 's'),
	F(isolated, 's'),
	F(nohz_full, 's'),
	F(clocksource, 's'),
};
const size_t bt_sysinfo_nfields = sizeof(bt_sysinfo_fields) / sizeof(bt_sysinfo_fields[0]);

#undef F

/* Copy src into dst[n], truncating (a version or a kernel string may be long). */
static void set_str(char *dst, size_t n, const char *src)
{
	size_t len = strnlen(src, n - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* Copy src into dst[n], trimming surrounding blanks and squeezing inner runs of them. */
static void copy_squeezed(char *dst, size_t n, const char *src)
{
	size_t k = 0;
	int space = 0;

	while (isspace((unsigned char)*src))
		src++;
	for (; *src != '\0' && k + 1 < n; src++) {
		if (isspace((unsigned char)*src)) {
			space = 1;
			continue;
		}
		if (space && k + 2 < n)
			dst[k++] = ' ';
		space = 0;
		dst[k++] = *src;
	}
	dst[k] = '\0';
}

/*
 * Read /proc/cpuinfo once for the model name and the ISA flags benchtop's
 * workloads care about (AES-NI, SHA, AVX for the crypto numbers). Only the
 * first CPU's entries are used: all CPUs of a machine report the same here.
 */
static void read_cpuinfo(struct bt_sysinfo *si)
{
	static const char *const notable[] = {
		"aes", "sha_ni", "avx", "avx2", "avx512f", "pclmulqdq", "rdrand",
	};
	char *line = NULL, *flags = NULL;
	size_t cap = 0;
	int have_model = 0;
	FILE *f;

	snprintf(si->cpu_model, sizeof(si->cpu_model), "unknown");
	si->cpu_flags[0] = '\0';
	f = fopen("/proc/cpuinfo", "re");
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		char *colon = strchr(line, ':');
		size_t klen;

		if (colon == NULL)
			continue;
		klen = (size_t)(colon - line);
		while (klen > 0 && isspace((unsigned char)line[klen - 1]))
			klen--;
		if (!have_model && klen == 10 && strncmp(line, "model name", 10) == 0) {
			copy_squeezed(si->cpu_model, sizeof(si->cpu_model), colon + 1);
			if (si->cpu_model[0] == '\0')
				snprintf(si->cpu_model, sizeof(si->cpu_model), "unknown");
			have_model = 1;
		} else if (flags == NULL && ((klen == 5 && strncmp(line, "flags", 5) == 0) ||
					     (klen == 8 && strncmp(line, "Features", 8) == 0))) {
			flags = strdup(colon + 1);
		}
		if (have_model && flags != NULL)
			break;
	}
	fclose(f);
	free(line);
	if (flags == NULL)
		return;

	for (size_t i = 0; i < sizeof(notable) / sizeof(notable[0]); i++) {
		const char *p = flags;
		size_t len = strlen(notable[i]);

		/* Whole-word match: "avx" must not match inside "avx2". */
		while ((p = strstr(p, notable[i])) != NULL) {
			int start = p == flags || isspace((unsigned char)p[-1]);
			int end = p[len] == '\0' || isspace((unsigned char)p[len]);

			if (start && end) {
				size_t used = strlen(si->cpu_flags);

				snprintf(si->cpu_flags + used, sizeof(si->cpu_flags) - used, "%s%s",
					 used ? " " : "", notable[i]);
				break;
			}
			p += len;
		}
	}
	free(flags);
}

/* First line of a small text file, without the newline; "" on failure. */
static void read_first_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (f == NULL)
		return;
	if (fgets(buf, (int)n, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* A "Name:   N kB" line of /proc/meminfo in bytes; 0 when absent. */
static uint64_t read_meminfo(const char *name)
{
	unsigned long long kb = 0;
	size_t len = strlen(name);
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, len) == 0 && line[len] == ':') {
			kb = strtoull(line + len + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return (uint64_t)kb * 1024;
}

static uint64_t read_mem_total(void)
{
	return read_meminfo("MemTotal");
}

uint64_t bt_sysinfo_mem_available(void)
{
	return read_meminfo("MemAvailable");
}

static int count_allowed_cpus(void)
{
	for (int n = 1024; n <= (1 << 20); n *= 2) {
		size_t sz = CPU_ALLOC_SIZE(n);
		cpu_set_t *set = CPU_ALLOC(n);
		int count;

		if (set == NULL)
			return -1;
		CPU_ZERO_S(sz, set);
		if (sched_getaffinity(0, sz, set) == 0) {
			count = CPU_COUNT_S(sz, set);
			CPU_FREE(set);
			return count;
		}
		CPU_FREE(set);
		if (errno != EINVAL)
			return -1;
	}
	return -1;
}

/*
 * Whole-machine topology counts (as far as the cgroup lets this process
 * see), not limited by the affinity mask: the record describes the machine,
 * while allowed_cpus says what the run could use. smt is the largest number
 * of PUs on one core.
 */
static void read_topology(struct bt_sysinfo *si)
{
	hwloc_topology_t topo;
	int pus, cores;

	si->physical_cores = si->logical_cpus;
	si->packages = 1;
	si->numa_nodes = 1;
	si->smt = 1;
	if (hwloc_topology_init(&topo) < 0)
		return;
	if (hwloc_topology_load(topo) < 0)
		goto out;
	pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
	si->physical_cores = cores > 0 ? cores : (pus > 0 ? pus : si->logical_cpus);
	if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE) > 0)
		si->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
	if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) > 0)
		si->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	for (int i = 0; i < cores; i++) {
		hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)i);
		int k;

		if (core == NULL || core->cpuset == NULL)
			continue;
		k = hwloc_get_nbobjs_inside_cpuset_by_type(topo, core->cpuset, HWLOC_OBJ_PU);
		if (k > si->smt)
			si->smt = k;
	}
out:
	hwloc_topology_destroy(topo);
}

int bt_sysinfo_collect(struct bt_sysinfo *si)
{
	struct utsname un;
	long n;

	memset(si, 0, sizeof(*si));
	if (gethostname(si->host, sizeof(si->host)) < 0)
		snprintf(si->host, sizeof(si->host), "unknown");
	si->host[sizeof(si->host) - 1] = '\0';

	read_cpuinfo(si);

	if (uname(&un) == 0) {
		char kernel[sizeof(un.sysname) + sizeof(un.release) + sizeof(un.version) + 2];

		set_str(si->arch, sizeof(si->arch), un.machine);
		snprintf(kernel, sizeof(kernel), "%s %s %s", un.sysname, un.release, un.version);
		set_str(si->kernel, sizeof(si->kernel), kernel);
	} else {
		snprintf(si->arch, sizeof(si->arch), "unknown");
		snprintf(si->kernel, sizeof(si->kernel), "unknown");
	}

	n = sysconf(_SC_NPROCESSORS_ONLN);
	si->logical_cpus = n > 0 ? (int)n : 1;
	si->allowed_cpus = count_allowed_cpus();
	if (si->allowed_cpus <= 0)
		si->allowed_cpus = si->logical_cpus;
	read_topology(si);

	read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", si->governor,
			sizeof(si->governor));
	if (si->governor[0] == '\0')
		snprintf(si->governor, sizeof(si->governor), "unknown");
	si->mem_total = read_mem_total();

#if defined(__clang__)
	snprintf(si->compiler, sizeof(si->compiler), "clang %s", __clang_version__);
#elif defined(__GNUC__)
	snprintf(si->compiler, sizeof(si->compiler), "gcc %s", __VERSION__);
#else
	snprintf(si->compiler, sizeof(si->compiler), "unknown");
#endif
	snprintf(si->libc, sizeof(si->libc), "glibc %s", gnu_get_libc_version());
	set_str(si->openssl, sizeof(si->openssl), OpenSSL_version(OPENSSL_VERSION));
	snprintf(si->libmemcached, sizeof(si->libmemcached), "%s", BT_VER_LIBMEMCACHED);
	snprintf(si->hiredis, sizeof(si->hiredis), "%s", BT_VER_HIREDIS);
	snprintf(si->ncurses, sizeof(si->ncurses), "%s", BT_VER_NCURSES);
	snprintf(si->jansson, sizeof(si->jansson), "%s", BT_VER_JANSSON);
	snprintf(si->hwloc, sizeof(si->hwloc), "%s", BT_VER_HWLOC);
	snprintf(si->benchtop, sizeof(si->benchtop), "%s", BT_VERSION);
	bt_machine_collect(si);
	return 0;
}

/*
 * The fields compared by bt_sysinfo_diff: everything that can move a
 * number. host and mem_total are left out: the same box renamed, or with
 * more RAM than a benchmark touches, gives the same figures; so is
 * steal_pct, which is how busy the neighbours were, not the machine.
 */
static int diff_relevant(const char *name)
{
	return strcmp(name, "host") != 0 && strcmp(name, "mem_total") != 0 &&
	       strcmp(name, "steal_pct") != 0;
}

static void field_text(const struct bt_sysinfo *si, const struct bt_sysinfo_field *fd,
		       char *buf, size_t n)
{
	const char *p = (const char *)si + fd->off;

	switch (fd->kind) {
	case 's':
		snprintf(buf, n, "%.*s", (int)strnlen(p, fd->size), p);
		break;
	case 'i': {
		int v;

		memcpy(&v, p, sizeof(v));
		snprintf(buf, n, "%d", v);
		break;
	}
	case 'd': {
		double v;

		memcpy(&v, p, sizeof(v));
		snprintf(buf, n, "%g", v);
		break;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, sizeof(v));
		snprintf(buf, n, "%llu", (unsigned long long)v);
		break;
	}
	}
}

int bt_sysinfo_diff(const struct bt_sysinfo *a, const struct bt_sysinfo *b, char *buf, size_t n)
{
	size_t used = 0;
	int count = 0;

	if (n > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < bt_sysinfo_nfields; i++) {
		const struct bt_sysinfo_field *fd = &bt_sysinfo_fields[i];
		char ta[160], tb[160];
		int w;

		if (!diff_relevant(fd->name))
			continue;
		field_text(a, fd, ta, sizeof(ta));
		field_text(b, fd, tb, sizeof(tb));
		if (strcmp(ta, tb) == 0 || (fd->kind == 's' && (ta[0] == '\0' || tb[0] == '\0')))
			continue;
		count++;
		if (used >= n)
			continue;
		w = snprintf(buf + used, n - used, "%s%s: %s -> %s", count > 1 ? "\n" : "",
			     fd->name, ta, tb);
		if (w < 0)
			continue;
		used += (size_t)w;
		if (used >= n)
			used = n;	/* truncated: keep counting, stop writing */
	}
	return count;
}

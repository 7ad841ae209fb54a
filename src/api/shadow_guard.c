/*
 * shadow_guard.c - say so when a stock iperf3 program has loaded this
 * library in place of its own (shared library only, not in the core).
 *
 * A stock iperf3 reads the private structure of the libiperf.so.0 it was
 * built for; run on ours (LD_LIBRARY_PATH, or an install made with
 * --enable-replace-libiperf) it prints its usage and exits 0 on every run,
 * with no hint why.  Our own iperf3 has the library code linked in and
 * never loads libiperf.so.0, so a program called iperf3 whose ELF
 * dependencies name libiperf.so.0 is a stock one.  Then, when the library
 * is loaded, one line on stderr names the library it got and where to
 * read more.  Nothing else changes: the library never ends the process.
 * This constructor is the one place where the library writes to stderr
 * on its own.
 */
#include "config.h"

#if defined(HAVE_LINK_H) && defined(HAVE_DL_ITERATE_PHDR) && \
    HAVE_DECL_PROGRAM_INVOCATION_SHORT_NAME && defined(__GNUC__)
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "banned.h"

#define GUARD_SONAME "libiperf.so.0"

struct guard_scan {
	int seen_program;     /* the first object is the program */
	int program_needs_us; /* its DT_NEEDED names libiperf.so.0 */
	const char *our_path; /* the object holding this code */
};

/* A d_ptr in a dynamic section, whether or not the loader relocated it
 * in place (glibc does where the section is writable). */
static uintptr_t
dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) ptr)
{
	return ptr < info->dlpi_addr ? info->dlpi_addr + ptr : ptr;
}

static int
needs_soname(const struct dl_phdr_info *info)
{
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Dyn) *d;
	const char *strtab = NULL;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
			    info->dlpi_phdr[i].p_vaddr);
	if (dyn == NULL)
		return 0;
	for (d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *)dyn_addr(info, d->d_un.d_ptr);
	if (strtab == NULL)
		return 0;
	for (d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED &&
		    strcmp(strtab + d->d_un.d_val, GUARD_SONAME) == 0)
			return 1;
	return 0;
}

static int
holds(const struct dl_phdr_info *info, uintptr_t addr)
{
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && addr >= start &&
		    addr - start < ph->p_memsz)
			return 1;
	}
	return 0;
}

static int
scan_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct guard_scan *scan = data;

	(void)size;
	if (!scan->seen_program) {
		scan->seen_program = 1;
		scan->program_needs_us = needs_soname(info);
		return scan->program_needs_us ? 0 : 1; /* else: stop here */
	}
	if (holds(info, (uintptr_t)&needs_soname)) {
		scan->our_path = info->dlpi_name;
		return 1;
	}
	return 0;
}

static int
is_stock_name(const char *name)
{
	return strcmp(name, "iperf3") == 0 ||
	    strcmp(name, "iperf3_profile") == 0 ||
	    strcmp(name, "lt-iperf3") == 0;
}

__attribute__((constructor)) static void
shadow_guard(void)
{
	struct guard_scan scan = { 0, 0, NULL };

	if (!is_stock_name(program_invocation_short_name))
		return;
	(void)dl_iterate_phdr(scan_object, &scan);
	if (!scan.program_needs_us)
		return;
	(void)fprintf(stderr,
	    "%s: warning - this iperf3 was built for the stock libiperf but "
	    "has loaded %s %s (%s); it cannot run on it\n"
	    "%s: unset LD_LIBRARY_PATH or remove that library; see the "
	    "README of %s, \"Installing beside a stock iperf3\"\n",
	    program_invocation_short_name, PACKAGE_NAME, PACKAGE_VERSION,
	    scan.our_path != NULL && scan.our_path[0] != '\0' ?
	    scan.our_path : GUARD_SONAME,
	    program_invocation_short_name, PACKAGE_NAME);
}
#else
/* ISO C wants something in a translation unit. */
typedef int shadow_guard_unavailable;
#endif

# gpudot: build, test, demo and package.
#
#   make            build build/__gpudot__.mex (CUDA + CPU engines; CPU only without nvcc)
#   make check      build, then run the test suite (installs Octave first if missing)
#   make demo       build, then the demos: tables and PNG plots in build/demos
#   make bench      GPU machine: every benchmark case, bench/results/<device>.csv, BENCHMARKS.md
#   make check-valgrind  the CPU-engine suite under valgrind memcheck (CI)
#   make soak       10^6 small + 10^4 large calls, memory must stay flat (CI; GPU too)
#   make fuzz       the differential fuzzer: 10^5 calls against Octave's own functions (CI; GPU too)
#   make check-pool the CPU engine's thread pool alone under ThreadSanitizer (CI)
#   make check-sanitize  GPU machine: the suite under compute-sanitizer's four tools
#   make check-big  GPU machine: 2^32 + 3 elements, a host vector beyond device memory
#   make dist       gpudot-VERSION.tar.gz for `pkg install`
#   make check-dist build the tarball, pkg install it into a scratch prefix, pkg load, test
#   make format-check  C, C++ and CUDA sources as clang-format (.clang-format) writes them (CI)
#   make check-distro  check and check-dist on Debian sid's Octave (DISTRO=trixie: 9.4) in a
#                   debootstrap chroot, CUDA bind-mounted read-only (root; CI)
NAME    := gpudot
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
DATE    := $(shell sed -n 's/^Date: *//p' DESCRIPTION)
CUDA_HOME ?= /usr/local/cuda
NVCC    ?= $(CUDA_HOME)/bin/nvcc
MKOCTFILE ?= mkoctfile
OCTAVE  ?= octave-cli
OCTFLAGS := --no-history --no-init-file --no-site-file
BUILD   := build
MEX     := $(BUILD)/__gpudot__.mex
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

export CUDA_HOME NVCC MKOCTFILE

all: $(MEX)

# Octave and its headers, from Debian's packages, where missing; and where nvcc rejects
# the default g++ (newer than it supports), the newest g++-N that it accepts (probed only
# until the build has a working CUDA configuration).
deps:
	@command -v $(MKOCTFILE) >/dev/null 2>&1 && command -v $(OCTAVE) >/dev/null 2>&1 || { \
	  echo "gpudot: installing octave and octave-dev (Debian packages)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
	    octave octave-dev >/dev/null; }
	@grep -qs '^HAVE_NVCC := yes' $(BUILD)/obj/config.mk || \
	need=$$(GPUDOT_PROBE_NEEDS=1 NVCC='$(NVCC)' sh cuda/configure-cuda.sh 2>/dev/null); \
	if [ -n "$$need" ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "gpudot: nvcc needs an older host compiler: installing $$need"; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
	    $$need >/dev/null || echo "gpudot: could not install $$need: the CPU engine only"; \
	fi

$(MEX): deps FORCE
	@$(MAKE) --no-print-directory -j$(JOBS) -f mex.mk SRC=. OUT=$(BUILD) LINK_ENTRIES=1

check: $(MEX)
	GPUDOT_MEXDIR=$(BUILD) $(OCTAVE) $(OCTFLAGS) tests/run_tests.m

# The CPU-engine suite under valgrind memcheck: every test block (GPUDOT_VALGRIND shortens
# the one 10^5-call loop to 10^3) and every VG_STRIDE-th case of each grid (valgrind costs
# ~100x: all 8670 cases took 23 min on the 2-core CI machine, VG_STRIDE=10 ~4 min), in
# VG_JOBS copies side by side (tests/run_jobs.sh; one took about 37 min on the 2-core VM,
# two 21).
# tests/valgrind.supp names only allocations Octave makes itself; any other leak or any
# memory error fails the run.  Installs valgrind where missing.  tests/vg_hwy_timer.c,
# preloaded, stands in for libhwy's timer calibration, whose RDTSCP valgrind refuses on
# VMs that hide it (Octave died at load there).
VG_STRIDE ?= 10
VG_JOBS ?= 2
VALGRIND ?= valgrind
VGFLAGS := --tool=memcheck --leak-check=full --show-leak-kinds=definite,possible \
           --errors-for-leak-kinds=definite,possible --suppressions=tests/valgrind.supp \
           --num-callers=40 --error-exitcode=9
check-valgrind: $(MEX)
	@command -v $(VALGRIND) >/dev/null 2>&1 || { \
	  echo "gpudot: installing valgrind"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends valgrind >/dev/null; }
	$(CC) -shared -fPIC -O1 -Wall tests/vg_hwy_timer.c -o $(BUILD)/vg_hwy_timer.so
	rm -f $(BUILD)/valgrind.*.log
	GPUDOT_VALGRIND=1 GPUDOT_GRID_STRIDE=$(VG_STRIDE) GPUDOT_MEXDIR=$(BUILD) \
	  tests/run_jobs.sh $(VG_JOBS) env LD_PRELOAD=$(abspath $(BUILD))/vg_hwy_timer.so \
	  $(VALGRIND) $(VGFLAGS) --log-file=$(BUILD)/valgrind.%q{GPUDOT_JOB}.log \
	  $(OCTAVE) $(OCTFLAGS) tests/run_tests.m
	@tail -n 1 $(BUILD)/valgrind.*.log

# The thread pool (cpu/gpudot_pool.c) alone, built with ThreadSanitizer (tests/pool_stress.c):
# jobs of random sizes back to back with 2, 4 and 16 threads; any data race, or a task run
# twice, missed or started after its job returned, fails.
POOL_JOBS ?= 3000
check-pool:
	mkdir -p $(BUILD)
	$(CC) -O1 -g -fsanitize=thread -fopenmp -std=gnu11 -Wall -Wextra -Iinclude \
	  tests/pool_stress.c cpu/gpudot_pool.c -o $(BUILD)/pool_stress
	for t in 2 4 16; do OMP_NUM_THREADS=$$t $(BUILD)/pool_stress $(POOL_JOBS) || exit 1; done

# Builds the MEX, except on a GPU machine with the octave bundle alone (Octave, no
# mkoctfile): there build/ is used as it is.
BUILD_UNLESS_BUNDLE = @if command -v $(MKOCTFILE) >/dev/null 2>&1 || ! command -v $(OCTAVE) >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(MEX); fi

# The differential fuzzer (tests/fuzz_diff.m): FUZZ_CASES random calls held to Octave's own
# functions; on a GPU machine with garrays and "device", "gpu" too.  FUZZ_JOBS copies
# share the seeds (tests/run_jobs.sh): 2 x 10^4 cases took 53 s in one on the 2-core VM,
# 30 s in two.
FUZZ_CASES ?= 100000
FUZZ_SEED ?= 1000001
FUZZ_JOBS ?= 2
fuzz:
	$(BUILD_UNLESS_BUNDLE)
	GPUDOT_FUZZ_CASES=$(FUZZ_CASES) GPUDOT_FUZZ_SEED=$(FUZZ_SEED) GPUDOT_MEXDIR=$(BUILD) \
	  tests/run_jobs.sh $(FUZZ_JOBS) $(OCTAVE) $(OCTFLAGS) tests/run_fuzz.m

# Many calls in one session; Octave's memory (and the device's) must stay flat.
SOAK_SMALL ?= 1000000
SOAK_LARGE ?= 10000
soak:
	$(BUILD_UNLESS_BUNDLE)
	GPUDOT_SOAK_SMALL=$(SOAK_SMALL) GPUDOT_SOAK_LARGE=$(SOAK_LARGE) GPUDOT_MEXDIR=$(BUILD) \
	  $(OCTAVE) $(OCTFLAGS) tests/soak.m

# GPU machine (uses build/ as it is where mkoctfile is missing, as bench does).
check-sanitize:
	@if command -v $(MKOCTFILE) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(MEX); fi
	OCTAVE=$(OCTAVE) GPUDOT_MEXDIR=$(BUILD) tests/sanitize.sh $(BUILD)/sanitize

check-big:
	@if command -v $(MKOCTFILE) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(MEX); fi
	GPUDOT_MEXDIR=$(BUILD) $(OCTAVE) $(OCTFLAGS) tests/big_sizes.m

# The demos (gpudot_demo: ladder, accuracy, overflow, search), each a table and a PNG in
# build/demos; GPUDOT_DEMO_SIZE=quick|full (default: full with a GPU, quick without).
DEMOS := ladder accuracy overflow search
demo: $(MEX) plot-deps
	GPUDOT_MEXDIR=$(BUILD) $(OCTAVE) $(OCTFLAGS) --eval \
	  'addpath (make_absolute_filename ("demos"), make_absolute_filename ("m")); addpath (make_absolute_filename ("$(BUILD)")); demo_gdot_quick; for d = strsplit ("$(DEMOS)"), gpudot_demo (d{1}, "$(BUILD)/demos", getenv ("GPUDOT_DEMO_SIZE")); end'

# gnuplot draws the demos' plots headless; a GPU machine without it uses python3's matplotlib.
plot-deps:
	@command -v gnuplot >/dev/null 2>&1 || python3 -c 'import matplotlib' >/dev/null 2>&1 || { \
	  echo "gpudot: installing gnuplot-nox (demo plots)"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null; }

# Needs a GPU, nvcc and cuBLAS; uses build/__gpudot__.mex as it is where mkoctfile is
# missing (a GPU machine with the octave bundle only).
bench:
	@if command -v $(MKOCTFILE) >/dev/null 2>&1; then $(MAKE) --no-print-directory $(MEX); fi
	BUILD=$(BUILD) OCTAVE=$(OCTAVE) bench/run_bench.sh

DIST := $(BUILD)/dist/$(NAME)-$(VERSION)
dist: deps
	rm -rf $(BUILD)/dist && mkdir -p $(DIST)/inst $(DIST)/src
	cp -r m/. $(DIST)/inst/
	awk -f mex/classdef_help.awk m/garray.m > $(DIST)/inst/garray.m
	cp -r mex cpu cuda include $(DIST)/src/
	# the help of gdot, gnorm and gcosine lives in their .oct (built from src/help); the
	# .m fallbacks beside them lose theirs, so that lookfor lists each function once
	mkdir -p $(DIST)/src/help
	for f in gdot gnorm gcosine; do \
	  cp m/$$f.m $(DIST)/src/help/ && \
	  sed '/^## -\*- texinfo -\*-$$/,/^## @end deftypefn$$/c\## (the help is in the compiled entry of the same name, built with it)' \
	    m/$$f.m > $(DIST)/inst/$$f.m || exit 1; \
	done
	{ echo "GPUDOT_PACKAGE ?= 1"; cat mex.mk; } > $(DIST)/src/Makefile
	printf "__gpudot__.mex\ngdot.oct\ngnorm.oct\ngcosine.oct\n__gpudot_undispatch__.oct\n" > $(DIST)/src/FILES
	cp DESCRIPTION INDEX COPYING README.md post_install.m $(DIST)/
	tar --sort=name --mtime="$(DATE) 00:00Z" --owner=0 --group=0 --numeric-owner \
	    -C $(BUILD)/dist -cf - $(NAME)-$(VERSION) | gzip -n > $(NAME)-$(VERSION).tar.gz
	@echo "wrote $(NAME)-$(VERSION).tar.gz"

# pkg install the tarball into a scratch prefix, pkg load it, run the suite against it.
check-dist: dist
	rm -rf $(BUILD)/pkgroot && mkdir -p $(BUILD)/pkgroot
	GPUDOT_PKG_PREFIX=$(CURDIR)/$(BUILD)/pkgroot GPUDOT_TARBALL=$(NAME)-$(VERSION).tar.gz \
	  $(OCTAVE) $(OCTFLAGS) tests/pkg_install_check.m
	GPUDOT_PKG_PREFIX=$(CURDIR)/$(BUILD)/pkgroot $(OCTAVE) $(OCTFLAGS) tests/run_tests.m

# The fuzzer against the package check-dist installed (run after it): on another Octave
# release (check-distro) it holds gpudot to that release's own functions, whose corners
# differ (vecnorm at Inf, the mean of complex NaN and Inf).
FUZZ_DIST_CASES ?= 20000
fuzz-dist:
	GPUDOT_FUZZ_CASES=$(FUZZ_DIST_CASES) GPUDOT_FUZZ_SEED=$(FUZZ_SEED) \
	  GPUDOT_PKG_PREFIX=$(CURDIR)/$(BUILD)/pkgroot \
	  tests/run_jobs.sh $(FUZZ_JOBS) $(OCTAVE) $(OCTFLAGS) tests/run_fuzz.m

# Every C, C++ and CUDA source as clang-format writes it; `clang-format -i FILE` mends one.
CLANG_FORMAT ?= clang-format
format-check:
	@command -v $(CLANG_FORMAT) >/dev/null 2>&1 || { \
	  echo "gpudot: installing clang-format"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends clang-format >/dev/null; }
	@bad=0; for f in $$(git ls-files '*.c' '*.h' '*.cc' '*.cu' '*.cuh'); do \
	  $(CLANG_FORMAT) --dry-run --Werror "$$f" >/dev/null 2>&1 || { echo "not formatted: $$f"; bad=1; }; \
	done; [ $$bad = 0 ] && echo "format-check: ok"

# Another Debian release's Octave: a chroot from Debian's packages, kept in
# /var/tmp/gpudot-chroot/$(DISTRO) between runs (tests/distro_check.sh).
DISTRO ?= sid
DISTRO_TARGETS ?= check demo check-dist
check-distro:
	CUDA_HOME=$(CUDA_HOME) tests/distro_check.sh $(DISTRO) $(DISTRO_TARGETS)

clean:
	@$(MAKE) --no-print-directory -f mex.mk SRC=. OUT=$(BUILD) clean
	rm -rf $(BUILD) $(NAME)-*.tar.gz

FORCE:
.PHONY: all deps plot-deps check check-valgrind check-pool soak fuzz check-sanitize check-big demo bench dist check-dist fuzz-dist check-distro format-check clean FORCE

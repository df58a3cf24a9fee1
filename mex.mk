# Builds __gpudot__.mex and the compiled entries gdot.oct, gnorm.oct, gcosine.oct (linked
# against it).  Used in place (make -f mex.mk SRC=. OUT=build LINK_ENTRIES=1, which also
# copies the entries' .m files beside them, and garray.m with its help where Octave 7 reads
# it: mex/classdef_help.awk) and, copied to src/Makefile by `make dist`, by
# `pkg install` (SRC=. OUT=. GPUDOT_PACKAGE=1; the help comes from ../inst/*.m there).
#
#   CUDA_HOME, NVCC     CUDA toolkit (default /usr/local/cuda); without nvcc: a CPU-only MEX
#   MKOCTFILE           Octave's mkoctfile
#   CUDA_ARCHS          SASS targets, e.g. "90" or "80 90" ("none": PTX only).  Default: the
#                       GPUs of this machine; without one, every major architecture in a
#                       package build and PTX only in place (cuda/configure-cuda.sh)
#   CUDA_PTX            PTX targets (default: the newest of CUDA_ARCHS; empty: none)
#   NVCC_CCBIN          nvcc's host compiler (default: the first that works, see above)
#   GPUDOT_NO_CUDA=1    the CPU engine alone
.DEFAULT_GOAL := all
SRC ?= .
OUT ?= .
comma := ,
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
MKOCTFILE ?= mkoctfile
CC ?= gcc

OBJ := $(OUT)/obj
# STAGES=1: stage timers for bench/stages.m (see gpudot.h); off by default
STAGES ?= 0
DEFS := $(if $(filter 1,$(STAGES)),-DGPUDOT_STAGES)
# -ffp-contract=off: the CPU engine's vectorised clones (cpu/gpudot_cpu.c) give the same bits
CFLAGS_ENGINE := -O3 -fPIC -fopenmp -std=gnu11 -ffp-contract=off -Wall -Wextra -I$(SRC)/include $(DEFS)

# How to build the CUDA engine here (nvcc, host compiler, architectures), decided once by
# cuda/configure-cuda.sh and again whenever one of its inputs changes, or on every make
# while a failed probe left the CPU engine alone (CONFIG_RETRY; once per make: make
# restarts after remaking the config).
CONFIG := $(OBJ)/config.mk
CONFIG_INPUTS := $(NVCC)|$(CUDA_ARCHS)|$(origin CUDA_PTX):$(CUDA_PTX)|$(NVCC_CCBIN)|$(GPUDOT_NO_CUDA)|$(GPUDOT_PACKAGE)
-include $(CONFIG)
ifneq ($(CONFIG_KEY),$(CONFIG_INPUTS))
$(CONFIG): FORCE
else ifeq ($(CONFIG_RETRY):$(MAKE_RESTARTS),1:)
$(CONFIG): FORCE
endif
$(CONFIG): $(SRC)/cuda/configure-cuda.sh | $(OBJ)
	@NVCC='$(NVCC)' CUDA_ARCHS='$(CUDA_ARCHS)' $(if $(NVCC_CCBIN),NVCC_CCBIN='$(NVCC_CCBIN)') \
	  GPUDOT_NO_CUDA='$(GPUDOT_NO_CUDA)' GPUDOT_PACKAGE='$(GPUDOT_PACKAGE)' SRC='$(SRC)' \
	  JOBS="$$(echo ' $(MAKEFLAGS) ' | sed -n 's/.* -j\([0-9][0-9]*\) .*/\1/p')" $(if $(filter undefined,$(origin CUDA_PTX)),,CUDA_PTX='$(CUDA_PTX)') \
	  sh $< > $@.tmp && echo 'CONFIG_KEY := $(CONFIG_INPUTS)' >> $@.tmp && mv $@.tmp $@

NVCC_FLAGS = -std=c++17 -O3 --threads $(NVCC_THREADS) $(NVCC_HOST) -Xcompiler -fPIC,-fopenmp \
             -I$(SRC)/include $(DEFS) $(NVCC_GENCODE)

ENGINE_HEADERS := $(addprefix $(SRC)/include/,gpudot.h gpudot_engine.h gpudot_hooks.h gpudot_math.h \
                    gpudot_exact.h gpudot_exact_top.h)

# The kernels of each (op, element type) pair: cuda/kernels.cu, once per pair, so that
# they compile in parallel (make -j).
KERNEL_PAIRS := dot_f32 dot_f64 norm_f32 norm_f64 cos_f32 cos_f64
CUDA_HOST := engine plan ring spread shards gather minmax topk search ladder exact
CUDA_HEADERS := $(SRC)/cuda/launch.cuh $(SRC)/cuda/reduce_kernels.cuh $(SRC)/cuda/warp_columns.cuh $(SRC)/cuda/ops.cuh $(SRC)/cuda/tuning.h $(SRC)/cuda/vec16.cuh \
                $(ENGINE_HEADERS)
ENGINE_OBJS := $(OBJ)/gpudot_common.o $(OBJ)/gpudot_pool.o $(OBJ)/gpudot_cpu.o $(OBJ)/gpudot_cpu_ops.o $(OBJ)/gpudot_pack.o \
               $(OBJ)/gpudot_topk.o $(OBJ)/gpudot_search.o $(OBJ)/gpudot_exact.o \
               $(OBJ)/gpudot_exact_final.o $(OBJ)/gpudot_cpu_exact.o
ifeq ($(HAVE_NVCC),yes)
ENGINE_OBJS += $(foreach f,$(CUDA_HOST),$(OBJ)/$(f).o) $(foreach k,$(KERNEL_PAIRS),$(OBJ)/kernels_$(k).o)
ENGINE_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
else
ENGINE_OBJS += $(OBJ)/gpudot_nocuda.o
ENGINE_LIBS :=
endif

# Quiet rules: a line a step on stderr, which `pkg install` shows as it runs (it keeps
# stdout until the end), and the step that failed named after the compiler's message;
# V=1 (`pkg install -verbose`) shows the commands instead.
ifeq ($(V),1)
run = $2
else
run = @echo "gpudot: $1" >&2; $2 || { echo "gpudot: FAILED: $1 (the message above says why)" >&2; exit 1; }
endif

MEX := $(OUT)/__gpudot__.mex
# Public entry points: gdot.oct (mex/gpudot_entry.cc, linked against the MEX, so one state),
# copied as gnorm.oct and gcosine.oct; their help comes from the .m files of the same names
# (m/ here, help/ in the package's src/: its inst/ copies have none, see `make dist`).
ENTRIES := gdot gnorm gcosine
# (and __gpudot_undispatch__.oct, the same file again, for PKG_DEL: see gpudot_entry.cc)
ENTRY_OCTS := $(foreach f,$(ENTRIES) __gpudot_undispatch__,$(OUT)/$(f).oct)
HELPDIR ?= $(firstword $(wildcard $(SRC)/m $(SRC)/help $(SRC)/../inst))
OCTLIBDIR := $(shell $(MKOCTFILE) -p OCTLIBDIR 2>/dev/null)

all: $(MEX) $(ENTRY_OCTS)
ifeq ($(LINK_ENTRIES),1)
	@for f in $(ENTRIES); do cp $(SRC)/m/$$f.m $(OUT)/; done
	@awk -f $(SRC)/mex/classdef_help.awk $(SRC)/m/garray.m > $(OUT)/garray.m
endif

$(OBJ):
	@mkdir -p $@

$(OBJ)/%.o: $(SRC)/cpu/%.c $(SRC)/cpu/gpudot_fast_loop.h $(ENGINE_HEADERS) | $(OBJ)
	$(call run,cc $(notdir $<),$(CC) $(CFLAGS_ENGINE) -c $< -o $@)

# The engine's host code by job (cuda/engine.cuh says which); the ladder's kernels are
# #included by ladder.cu alone.
$(OBJ)/ladder.o: $(SRC)/cuda/ladder_kernels.cuh
$(OBJ)/ring.o $(OBJ)/spread.o: $(SRC)/cuda/ring.cuh
$(OBJ)/topk.o $(OBJ)/search.o: $(SRC)/cuda/topk.cuh
$(OBJ)/search.o: $(SRC)/cuda/search_kernels.cuh $(SRC)/cuda/search_wide.cuh
$(OBJ)/exact.o: $(SRC)/cuda/exact_kernels.cuh
$(OBJ)/%.o: $(SRC)/cuda/%.cu $(SRC)/cuda/engine.cuh $(CUDA_HEADERS) $(CONFIG) | $(OBJ)
	$(call run,nvcc $(notdir $<),$(NVCC) $(NVCC_FLAGS) -c $< -o $@)

launcher_op = $(if $(filter dot_%,$1),DotLaunch,$(if $(filter norm_%,$1),NormLaunch,CosLaunch))
$(OBJ)/kernels_%.o: $(SRC)/cuda/kernels.cu $(CUDA_HEADERS) $(CONFIG) | $(OBJ)
	$(call run,nvcc kernels of $*,$(NVCC) $(NVCC_FLAGS) -DGPUDOT_KERNELS_OP=$(call launcher_op,$*) \
	    -DGPUDOT_KERNELS_F64=$(if $(filter %_f64,$*),1,0) -DGPUDOT_KERNELS_LAUNCHER=launch_$* -c $< -o $@)

# Octave's interrupt flag is C++ only from Octave 8 on: read through a C++ file
$(OBJ)/octave_interrupt.o: $(SRC)/mex/octave_interrupt.cc $(SRC)/mex/octave_interrupt.h | $(OBJ)
	$(call run,mkoctfile $(notdir $<),$(MKOCTFILE) -c $< -o $@)

# The gateway's other files (mex/gateway.h, mex/registry.h say what they share)
GATEWAY_OBJS := $(addprefix $(OBJ)/,errors.o hooks.o registry.o shapes.o args.o sparse.o intchunks.o garray_ops.o search_ops.o)
$(GATEWAY_OBJS): $(OBJ)/%.o: $(SRC)/mex/%.c $(SRC)/mex/gateway.h $(SRC)/mex/registry.h \
                 $(SRC)/mex/gpudot_entry.h $(ENGINE_HEADERS) | $(OBJ)
	$(call run,mkoctfile $(notdir $<),$(MKOCTFILE) --mex -R2018a -I$(SRC)/include -c $< -o $@)

$(MEX): $(SRC)/mex/__gpudot__.c $(GATEWAY_OBJS) $(SRC)/mex/gateway.h $(SRC)/mex/registry.h \
        $(SRC)/mex/gpudot_entry.h \
        $(SRC)/mex/octave_interrupt.h \
        $(ENGINE_HEADERS) $(ENGINE_OBJS) $(OBJ)/octave_interrupt.o
	$(call run,mkoctfile --mex __gpudot__.c,$(MKOCTFILE) --mex -R2018a -I$(SRC)/include $(DEFS) \
	    -o $@ $(SRC)/mex/__gpudot__.c $(GATEWAY_OBJS) $(ENGINE_OBJS) $(OBJ)/octave_interrupt.o $(ENGINE_LIBS) \
	    -lgomp -L$(OCTLIBDIR) -loctinterp -loctave -Wl$(comma)--no-undefined)
	$(STRIP_PKG)

$(OBJ)/gpudot_help.h: $(SRC)/mex/help_string.awk $(foreach f,$(ENTRIES),$(HELPDIR)/$(f).m) | $(OBJ)
	@for f in $(ENTRIES); do awk -v name=$$f -f $(SRC)/mex/help_string.awk $(HELPDIR)/$$f.m || exit 1; done > $@.tmp
	@mv $@.tmp $@

# The package installs what users run: no debug information (3.6 MB an .oct, 47 KB stripped)
STRIP_PKG = $(if $(filter 1,$(GPUDOT_PACKAGE)),@strip --strip-unneeded $@)

# Linked against the MEX by file name, found beside it at load time ($$ORIGIN; escaped once
# for this shell and once for mkoctfile's), so the dynamic loader maps the one library that
# Octave loads as __gpudot__.
$(OUT)/gdot.oct: $(SRC)/mex/gpudot_entry.cc $(SRC)/mex/gpudot_entry.h $(ENGINE_HEADERS) \
                 $(OBJ)/gpudot_help.h $(MEX)
	$(call run,mkoctfile gpudot_entry.cc,$(MKOCTFILE) -I$(SRC)/include -I$(SRC)/mex -I$(OBJ) \
	    -o $@ $(SRC)/mex/gpudot_entry.cc -L$(OUT) -l:__gpudot__.mex '-Wl$(comma)-rpath$(comma)\$$ORIGIN' \
	    -L$(OCTLIBDIR) -loctinterp -loctave -Wl$(comma)--no-undefined)
	$(STRIP_PKG)

$(OUT)/gnorm.oct $(OUT)/gcosine.oct $(OUT)/__gpudot_undispatch__.oct: $(OUT)/gdot.oct
	@cp -f $< $@

clean:
	rm -rf $(OBJ) $(MEX) $(OUT)/__gpudot__.o $(foreach f,$(ENTRIES),$(OUT)/$(f).mex $(OUT)/$(f).oct $(OUT)/$(f).o $(OUT)/$(f).m) $(OUT)/__gpudot_undispatch__.oct $(OUT)/gpudot_entry.o \
	    $(OUT)/garray.m

FORCE:
.PHONY: all clean FORCE

# Kernel-time benchmark on device-resident data (needs nvcc and cuBLAS).
BENCH := $(OUT)/kernel_bench
bench: $(BENCH)
$(BENCH): $(SRC)/bench/kernel_bench.cu $(SRC)/bench/bench_check.h $(ENGINE_OBJS)
	$(NVCC) $(NVCC_FLAGS) -o $@ $< $(ENGINE_OBJS) -lcublas -lgomp \
	    -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64
.PHONY: bench

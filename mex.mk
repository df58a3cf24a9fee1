# Builds __gpudot__.mex and the compiled entries gdot.oct, gnorm.oct, gcosine.oct (linked
# against it).  Used in place (make -f mex.mk SRC=. OUT=build LINK_ENTRIES=1, which also
# copies the .m files beside them) and, copied to src/Makefile by `make dist`, by
# `pkg install` (SRC=. OUT=.; the help comes from ../inst/*.m there).
#
#   CUDA_HOME, NVCC     CUDA toolkit (default /usr/local/cuda); without nvcc: a CPU-only MEX
#   MKOCTFILE           Octave's mkoctfile
#   CUDA_ARCHS          SASS targets
#   CUDA_PTX            PTX targets, for GPUs newer than CUDA_ARCHS (default 90; empty: none)
SRC ?= .
OUT ?= .
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
MKOCTFILE ?= mkoctfile
CC ?= gcc
CUDA_ARCHS ?= 75 80 86 89 90

HAVE_NVCC := $(shell test -x "$(NVCC)" -o -n "$$(command -v $(NVCC) 2>/dev/null)" && echo yes)
ifeq ($(GPUDOT_NO_CUDA),1)
HAVE_NVCC :=
endif

OBJ := $(OUT)/obj
# STAGES=1: stage timers for bench/stages.m (see gpudot.h); off by default
STAGES ?= 0
DEFS := $(if $(filter 1,$(STAGES)),-DGPUDOT_STAGES)
# -ffp-contract=off: the CPU engine's vectorised clones (cpu/gpudot_cpu.c) give the same bits
CFLAGS_ENGINE := -O3 -fPIC -fopenmp -std=gnu11 -ffp-contract=off -Wall -Wextra -I$(SRC)/include $(DEFS)
CUDA_PTX ?= 90
NVCC_GENCODE := $(foreach a,$(CUDA_ARCHS),-gencode=arch=compute_$(a),code=sm_$(a)) \
                $(foreach a,$(CUDA_PTX),-gencode=arch=compute_$(a),code=compute_$(a))
NVCC_FLAGS := -std=c++17 -O3 --threads 0 -Xcompiler -fPIC,-fopenmp -I$(SRC)/include $(DEFS) $(NVCC_GENCODE)

ENGINE_OBJS := $(OBJ)/gpudot_common.o $(OBJ)/gpudot_pool.o $(OBJ)/gpudot_cpu.o $(OBJ)/gpudot_cpu_ops.o $(OBJ)/gpudot_pack.o
ifeq ($(HAVE_NVCC),yes)
ENGINE_OBJS += $(OBJ)/gpudot_cuda.o
ENGINE_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
else
ENGINE_OBJS += $(OBJ)/gpudot_nocuda.o
ENGINE_LIBS :=
endif

MEX := $(OUT)/__gpudot__.mex
# Public entry points: gdot.oct (mex/gpudot_entry.cc, linked against the MEX, so one state),
# copied as gnorm.oct and gcosine.oct; their help comes from the .m files of the same names
# (m/ here, ../inst/ in the package's src/).
ENTRIES := gdot gnorm gcosine
# (and __gpudot_undispatch__.oct, the same file again, for PKG_DEL: see gpudot_entry.cc)
ENTRY_OCTS := $(foreach f,$(ENTRIES) __gpudot_undispatch__,$(OUT)/$(f).oct)
HELPDIR ?= $(firstword $(wildcard $(SRC)/m $(SRC)/../inst))
OCTLIBDIR := $(shell $(MKOCTFILE) -p OCTLIBDIR 2>/dev/null)

all: $(MEX) $(ENTRY_OCTS)
ifeq ($(LINK_ENTRIES),1)
	for f in $(ENTRIES); do cp $(SRC)/m/$$f.m $(OUT)/; done
endif
ifneq ($(HAVE_NVCC),yes)
	@echo "gpudot: nvcc not found ($(NVCC)): built a CPU-only MEX"
endif

$(OBJ):
	mkdir -p $@

$(OBJ)/%.o: $(SRC)/cpu/%.c $(SRC)/cpu/gpudot_fast_loop.h $(SRC)/include/gpudot.h $(SRC)/include/gpudot_math.h | $(OBJ)
	$(CC) $(CFLAGS_ENGINE) -c $< -o $@

$(OBJ)/gpudot_cuda.o: $(SRC)/cuda/gpudot_cuda.cu $(SRC)/cuda/reduce_kernels.cuh \
                      $(SRC)/include/gpudot.h $(SRC)/include/gpudot_math.h | $(OBJ)
	$(NVCC) $(NVCC_FLAGS) -c $< -o $@

$(MEX): $(SRC)/mex/__gpudot__.c $(SRC)/mex/gpudot_entry.h $(SRC)/include/gpudot.h $(ENGINE_OBJS)
	$(MKOCTFILE) --mex -R2018a -I$(SRC)/include $(DEFS) -o $@ $(SRC)/mex/__gpudot__.c \
	    $(ENGINE_OBJS) $(ENGINE_LIBS) -lgomp -L$(OCTLIBDIR) -loctinterp -loctave -Wl,--no-undefined

$(OBJ)/gpudot_help.h: $(SRC)/mex/help_string.awk $(foreach f,$(ENTRIES),$(HELPDIR)/$(f).m) | $(OBJ)
	for f in $(ENTRIES); do awk -v name=$$f -f $(SRC)/mex/help_string.awk $(HELPDIR)/$$f.m || exit 1; done > $@.tmp
	mv $@.tmp $@

# Linked against the MEX by file name, found beside it at load time ($$ORIGIN; escaped once
# for this shell and once for mkoctfile's), so the dynamic loader maps the one library that
# Octave loads as __gpudot__.
$(OUT)/gdot.oct: $(SRC)/mex/gpudot_entry.cc $(SRC)/mex/gpudot_entry.h $(SRC)/include/gpudot.h \
                 $(OBJ)/gpudot_help.h $(MEX)
	$(MKOCTFILE) -I$(SRC)/include -I$(SRC)/mex -I$(OBJ) -o $@ $(SRC)/mex/gpudot_entry.cc \
	    -L$(OUT) -l:__gpudot__.mex '-Wl,-rpath,\$$ORIGIN' -L$(OCTLIBDIR) -loctinterp -loctave \
	    -Wl,--no-undefined

$(OUT)/gnorm.oct $(OUT)/gcosine.oct $(OUT)/__gpudot_undispatch__.oct: $(OUT)/gdot.oct
	cp -f $< $@

clean:
	rm -rf $(OBJ) $(MEX) $(OUT)/__gpudot__.o $(foreach f,$(ENTRIES),$(OUT)/$(f).mex $(OUT)/$(f).oct $(OUT)/$(f).o $(OUT)/$(f).m) $(OUT)/__gpudot_undispatch__.oct $(OUT)/gpudot_entry.o

.PHONY: all clean

# Kernel-time benchmark on device-resident data (needs nvcc and cuBLAS).
BENCH := $(OUT)/kernel_bench
bench: $(BENCH)
$(BENCH): $(SRC)/bench/kernel_bench.cu $(SRC)/bench/bench_check.h $(ENGINE_OBJS)
	$(NVCC) $(NVCC_FLAGS) -o $@ $< $(ENGINE_OBJS) -lcublas -lgomp \
	    -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64
.PHONY: bench

# Round-trip probe of small calls without Octave (bench/latency_probe.cu).
PROBE := $(OUT)/latency_probe
probe: $(PROBE)
$(PROBE): $(SRC)/bench/latency_probe.cu $(SRC)/bench/bench_check.h
	$(NVCC) -std=c++17 -O2 $(NVCC_GENCODE) -o $@ $<
# The same through the engine's fast path, beside a CPU-speed reference (bench/call_probe.cu).
CALL_PROBE := $(OUT)/call_probe
probe: $(CALL_PROBE)
$(CALL_PROBE): $(SRC)/bench/call_probe.cu $(SRC)/bench/bench_check.h $(ENGINE_OBJS)
	$(NVCC) $(NVCC_FLAGS) -o $@ $< $(ENGINE_OBJS) -lgomp \
	    -Xlinker -rpath -Xlinker $(CUDA_HOME)/lib64
.PHONY: probe

# Builds __gpudot__.mex.  Used in place (make -f mex.mk SRC=. OUT=build LINK_ENTRIES=1,
# which also links gdot.mex, gnorm.mex, gcosine.mex to it, each beside its .m for help) and,
# copied to src/Makefile by `make dist`, by `pkg install` (SRC=. OUT=.; there post_install.m
# makes the links, since pkg copies files and a copy would be a second, separate library).
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

ENGINE_OBJS := $(OBJ)/gpudot_common.o $(OBJ)/gpudot_cpu.o $(OBJ)/gpudot_cpu_ops.o $(OBJ)/gpudot_pack.o
ifeq ($(HAVE_NVCC),yes)
ENGINE_OBJS += $(OBJ)/gpudot_cuda.o
ENGINE_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++
else
ENGINE_OBJS += $(OBJ)/gpudot_nocuda.o
ENGINE_LIBS :=
endif

MEX := $(OUT)/__gpudot__.mex
# Public entry points: hard links to the one MEX (one file, one state); see post_install.m.
ENTRIES := gdot gnorm gcosine
OCTLIBDIR := $(shell $(MKOCTFILE) -p OCTLIBDIR 2>/dev/null)

all: $(MEX)
ifeq ($(LINK_ENTRIES),1)
	for f in $(ENTRIES); do ln -f $(MEX) $(OUT)/$$f.mex && cp $(SRC)/m/$$f.m $(OUT)/; done
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

$(MEX): $(SRC)/mex/__gpudot__.c $(SRC)/include/gpudot.h $(ENGINE_OBJS)
	$(MKOCTFILE) --mex -R2018a -I$(SRC)/include $(DEFS) -o $@ $(SRC)/mex/__gpudot__.c \
	    $(ENGINE_OBJS) $(ENGINE_LIBS) -lgomp -L$(OCTLIBDIR) -loctinterp -loctave -Wl,--no-undefined

clean:
	rm -rf $(OBJ) $(MEX) $(OUT)/__gpudot__.o $(foreach f,$(ENTRIES),$(OUT)/$(f).mex $(OUT)/$(f).m)

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
.PHONY: probe

# rot: builds the driver (build/rot-driver), runs the tests and the benchmarks.
# The measuring core is built by the driver itself (core/Makefile), per measurement configuration.
BUILD ?= build
# make test runs the tests that judge no time this many at a time (tests/harness.pl), the rest alone
TEST_JOBS ?= 2
CC ?= gcc
LUA_CFLAGS := $(shell driver/deps.sh --lua-cflags)
LUA_LIBS := $(shell driver/deps.sh --lua-libs)
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE
DRIVER_SRCS := $(wildcard driver/*.c)
DRIVER_LIB_SRCS := $(filter-out driver/main.c,$(DRIVER_SRCS))
# the core's plain-C modules and headers the driver is built from (its Lua glue is in driver/),
# listed once: the rot frontend reads this line (keep it one line) to know when the driver is stale
DRIVER_CORE_MODULES := topology strdist rules protocol vocabulary count/counts cuda/words
DRIVER_CORE_OBJS := $(patsubst core/%.c,$(BUILD)/driver/core_%.o,$(wildcard $(DRIVER_CORE_MODULES:%=core/%.c)))
DRIVER_OBJS := $(DRIVER_SRCS:driver/%.c=$(BUILD)/driver/%.o) $(DRIVER_CORE_OBJS)
DRIVER_LIB_OBJS := $(DRIVER_LIB_SRCS:driver/%.c=$(BUILD)/driver/%.o) $(DRIVER_CORE_OBJS)
DRIVER_LIBS := $(LUA_LIBS) -lhwloc -ldw -lelf -lm
TEST_SRCS := $(filter-out tests/unit/core_%.c,$(wildcard tests/unit/*.c))
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%.t)
CORE_TEST_SRCS := $(wildcard tests/unit/core_*.c)
TEST_BINS += $(CORE_TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%.t)
# the core's modules the core_*.c unit tests link (its CPU variant, without main and kernels)
CORE_LIB_SRCS := $(filter-out core/main.c core/gpu%.c,$(wildcard core/*.c))
CORE_LIB_OBJS := $(CORE_LIB_SRCS:core/%.c=$(BUILD)/tests/core/%.o)
CORE_LIB := $(BUILD)/tests/libcore.a
CORE_LIBS := -lpfm -lhwloc -lm -lpthread
CORE_WARN := -Wall -Wextra -Wno-unused-parameter

.PHONY: all driver test check bench clean deps format gpu-verify
all: driver

driver: $(BUILD)/rot-driver

# linked beside and renamed into place: a running rot never sees a half-written driver
$(BUILD)/rot-driver: $(DRIVER_OBJS)
	$(CC) $(CFLAGS) -o $@.tmp$$$$ $^ $(DRIVER_LIBS) && mv -f $@.tmp$$$$ $@

$(BUILD)/driver/%.o: driver/%.c Makefile
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(LUA_CFLAGS) -Icore -MMD -MP -c $< -o $@

$(BUILD)/driver/core_%.o: core/%.c Makefile
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -MMD -MP -c $< -o $@

$(BUILD)/tests/%.t: tests/unit/%.c $(DRIVER_LIB_OBJS) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) $(LUA_CFLAGS) -Idriver -Icore -o $@ $< $(DRIVER_LIB_OBJS) $(DRIVER_LIBS)

# unit tests of the core's modules link them from an archive (test kernels register themselves
# from the test file, ROT_KERNEL)
$(BUILD)/tests/core/%.o: core/%.c Makefile
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(CFLAGS) $(CORE_WARN) -MMD -MP -c $< -o $@

$(CORE_LIB): $(CORE_LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/tests/core_%.t: tests/unit/core_%.c $(CORE_LIB) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(CFLAGS) $(CORE_WARN) -Icore -o $@ $< $(CORE_LIB) $(CORE_LIBS)

# rot's CUDA library's parts with no CUPTI in them, for its unit tests (their headers tracked: .d)
CUDA_TEST_OBJS := $(BUILD)/tests/core/cuda/records.o $(BUILD)/tests/core/cuda/sums.o

# rot's CUDA library's records (core/cuda/records.c), with the C++ demangler
$(BUILD)/tests/core_cuda.t: tests/unit/core_cuda.c $(BUILD)/tests/core/cuda/records.o $(CORE_LIB) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(CFLAGS) $(CORE_WARN) -Icore -o $@ $< $(BUILD)/tests/core/cuda/records.o $(CORE_LIB) $(CORE_LIBS) -lstdc++

# its metrics pass's sums (core/cuda/sums.c: no CUPTI in it either)
$(BUILD)/tests/core_cudamet.t: tests/unit/core_cudamet.c $(BUILD)/tests/core/cuda/sums.o $(BUILD)/tests/core/cuda/records.o $(CORE_LIB) tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(CFLAGS) $(CORE_WARN) -Icore -o $@ $< $(BUILD)/tests/core/cuda/sums.o $(BUILD)/tests/core/cuda/records.o $(CORE_LIB) $(CORE_LIBS) -lstdc++

deps:
	@./driver/deps.sh

# TAP through prove's engine (tests/harness.pl): the tests that judge no time (each says so in
# its head comment) two at a time, then every other test alone, each group in this list's order:
# the longest end-to-end tests first (the Slurm ones, which mostly wait, each beside a build),
# then make check's, the GPU checks without a device and the other end-to-end tests (shell).
E2E_FIRST := tests/e2e/slurm-faults.t tests/e2e/build.t tests/e2e/slurm.t tests/e2e/build-gpu.t \
	tests/e2e/robust.t tests/e2e/apps.t tests/e2e/kernels.t
test: deps
	@$(MAKE) -s driver $(TEST_BINS)
	@perl tests/harness.pl -j $(TEST_JOBS) $(E2E_FIRST) $(CHECK_TESTS) tests/gpu.t tests/ptx-broken.t \
		$(filter-out $(E2E_FIRST),$(wildcard tests/e2e/*.t)) tests/leftovers.t

# the developer's loop, the tests that measure nothing: the C unit tests (tests/unit), the tree's
# shape (tests/structure.t) and the Lua tests (the folder tests/lua: every test in it); make test
# is the full suite (CI's command)
CHECK_TESTS := $(TEST_BINS) tests/structure.t tests/lua
check: deps
	@$(MAKE) -s driver $(TEST_BINS)
	@perl tests/harness.pl $(CHECK_TESTS)

bench: deps
	@$(MAKE) -s driver
	@sh bench/bench.sh

format:
	clang-format -i driver/*.[ch] core/*.[ch] kernels/cpu/*.[ch] tests/unit/*.[ch] tests/hostile/kernels/*.[ch] tests/core/kernels/*.[ch]

clean:
	rm -rf $(BUILD)

-include $(DRIVER_OBJS:.o=.d) $(CORE_LIB_OBJS:.o=.d) $(CUDA_TEST_OBJS:.o=.d)

# on a GPU machine: rot's GPU ceilings, counters and latencies against its own reference program
gpu-verify: driver
	@tests/gpu-verify/run.sh

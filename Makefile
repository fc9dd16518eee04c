# rot: builds the driver (build/rot-driver), runs the tests and the benchmarks.
# The measuring core is built by the driver itself (core/Makefile), per measurement configuration.
BUILD ?= build
CC ?= gcc
LUA_CFLAGS := $(shell driver/deps.sh --lua-cflags)
LUA_LIBS := $(shell driver/deps.sh --lua-libs)
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE
DRIVER_SRCS := $(wildcard driver/*.c)
DRIVER_LIB_SRCS := $(filter-out driver/main.c,$(DRIVER_SRCS))
# the core's plain-C modules the driver shares (its Lua glue is in driver/)
DRIVER_CORE_OBJS := $(BUILD)/driver/core_topology.o
DRIVER_OBJS := $(DRIVER_SRCS:driver/%.c=$(BUILD)/driver/%.o) $(DRIVER_CORE_OBJS)
DRIVER_LIB_OBJS := $(DRIVER_LIB_SRCS:driver/%.c=$(BUILD)/driver/%.o) $(DRIVER_CORE_OBJS)
DRIVER_LIBS := $(LUA_LIBS) -lhwloc -lm
TEST_SRCS := $(filter-out tests/unit/core_%.c,$(wildcard tests/unit/*.c))
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%.t)
CORE_TEST_SRCS := $(wildcard tests/unit/core_*.c)
TEST_BINS += $(CORE_TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%.t)

.PHONY: all driver test bench clean deps format gpu-verify
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
	$(CC) $(CFLAGS) $(WARN) $(LUA_CFLAGS) -Idriver -o $@ $< $(DRIVER_LIB_OBJS) $(DRIVER_LIBS)

# unit tests of the core's plain-C modules link those modules' sources directly
$(BUILD)/tests/core_%.t: tests/unit/core_%.c core/bestk.c core/rules.c tests/unit/tap.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(WARN) -Icore -o $@ $< core/bestk.c core/rules.c -lm

deps:
	@./driver/deps.sh

# TAP through prove: unit tests (C), Lua library tests, end-to-end tests (shell).
test: deps
	@$(MAKE) -s driver $(TEST_BINS)
	@prove --exec '' $(TEST_BINS) tests/lua.t tests/levels.t tests/execute.t tests/history.t tests/gpu.t tests/ptx.t tests/ptx-broken.t tests/e2e/*.t tests/leftovers.t

bench: deps
	@$(MAKE) -s driver
	@sh tests/bench.sh

format:
	clang-format -i driver/*.[ch] core/*.[ch] kernels/cpu/*.[ch] tests/unit/*.[ch] tests/hostile/kernels/*.[ch] tests/core/kernels/*.[ch]

clean:
	rm -rf $(BUILD)

-include $(DRIVER_OBJS:.o=.d)

# on a GPU machine: rot's GPU ceilings, counters and latencies against its own reference program
gpu-verify: driver
	@tests/gpu-verify/run.sh

#!/bin/sh
# The compiled-code checks of tests/e2e/build-gpu.t (tests/gpu/ptx.lua) catch what they are for, on GPU kernels broken on
# purpose (tests/gpu/broken/kernels): a precision leak, a dropped store, a register spill.
# judges no time
. "$(dirname "$0")/gpu/toolkit.sh"
./rot run tests/gpu/broken/broken.lua -cacheDir="$T/c" 2>"$T/e"

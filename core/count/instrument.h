/* instrument: how rot's counting tool rewrites a superblock of the program's VEX IR: the
 * floating-point operations and the loaded and stored bytes it counts, and the memory accesses
 * it hands to the simulated caches. */
#ifndef ROT_COUNT_INSTRUMENT_H
#define ROT_COUNT_INSTRUMENT_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "counts.h"

/* The counts of the thread running now since it last started running (tool.c adds them to
 * that thread's on every switch). Generated code adds to it directly. */
extern ULong count_live[COUNT_N];

/* Whether memory accesses go through the simulated caches (--rot-sim=yes). */
extern Bool count_simulating;

/* The simulated access of size bytes at addr (tool.c: its cache hierarchy; traffic into
 * count_live). */
VG_REGPARM(3) void count_sim_access(Addr addr, UWord size, UWord write);

/* The tool's instrument callback (VG_(basic_tool_funcs)). */
IRSB *count_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		       const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gWordTy,
		       IRType hWordTy);

#endif

/* fpops: which VEX IR operations are floating-point work and how much: the flops of an
 * operation, its precision, lanes and vector width (rot's convention: add, sub, mul, div, sqrt,
 * min, max and the reciprocal estimates one flop a lane, a fused multiply-add two; negation,
 * absolute value, compares and conversions none). */
#ifndef ROT_COUNT_FPOPS_H
#define ROT_COUNT_FPOPS_H

#include "pub_tool_basics.h"
#include "libvex_ir.h"

enum fpop_kind { FPOP_OTHER, FPOP_ADD, FPOP_SUB, FPOP_FMA };

struct fpop {
	UInt bits;  /* the precision: 32 or 64 */
	UInt lanes; /* lanes it computes (1: a scalar operation, a lowest-lane one included) */
	UInt vec;   /* the width of its vector type in bits, 0 for scalar work (addsd's lowest lane
		       too) */
	UInt flops; /* per lane */
	enum fpop_kind kind;
};

/* Whether op is floating-point work, and which (f). */
Bool fpop_of(IROp op, struct fpop *f);

#endif

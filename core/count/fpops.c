/* fpops: the table of VEX's floating-point operations rot counts: per operation its precision,
 * lanes, vector width and flops a lane. */
#include "fpops.h"

#define S(b, fl, k) (*f = (struct fpop){b, 1, 0, fl, k}, True)	/* scalar */
#define V(b, n, w, k) (*f = (struct fpop){b, n, w, 1, k}, True) /* every lane of a vector */

/* Scalar operations (x87, SSE's scalar forms as VEX writes some of them, FMA's lanes). */
static Bool scalar_op(IROp op, struct fpop *f)
{
	switch (op) {
	case Iop_AddF64:
	case Iop_AddF64r32:
		return S(64, 1, FPOP_ADD);
	case Iop_SubF64:
	case Iop_SubF64r32:
		return S(64, 1, FPOP_SUB);
	case Iop_MulF64:
	case Iop_MulF64r32:
	case Iop_DivF64:
	case Iop_DivF64r32:
	case Iop_SqrtF64:
	case Iop_MaxNumF64:
	case Iop_MinNumF64:
	case Iop_RSqrtEst5GoodF64:
		return S(64, 1, FPOP_OTHER);
	case Iop_MAddF64:
	case Iop_MSubF64:
	case Iop_MAddF64r32:
	case Iop_MSubF64r32:
		return S(64, 2, FPOP_FMA);
	case Iop_AddF32:
		return S(32, 1, FPOP_ADD);
	case Iop_SubF32:
		return S(32, 1, FPOP_SUB);
	case Iop_MulF32:
	case Iop_DivF32:
	case Iop_SqrtF32:
	case Iop_MaxNumF32:
	case Iop_MinNumF32:
		return S(32, 1, FPOP_OTHER);
	case Iop_MAddF32:
	case Iop_MSubF32:
		return S(32, 2, FPOP_FMA);
	default:
		return False;
	}
}

/* SSE's and AVX's lowest-lane operations (addsd, mulss, ...): scalar work in a vector register. */
static Bool lane_op(IROp op, struct fpop *f)
{
	switch (op) {
	case Iop_Add64F0x2:
		return S(64, 1, FPOP_ADD);
	case Iop_Sub64F0x2:
		return S(64, 1, FPOP_SUB);
	case Iop_Mul64F0x2:
	case Iop_Div64F0x2:
	case Iop_Max64F0x2:
	case Iop_Min64F0x2:
	case Iop_Sqrt64F0x2:
		return S(64, 1, FPOP_OTHER);
	case Iop_Add32F0x4:
		return S(32, 1, FPOP_ADD);
	case Iop_Sub32F0x4:
		return S(32, 1, FPOP_SUB);
	case Iop_Mul32F0x4:
	case Iop_Div32F0x4:
	case Iop_Max32F0x4:
	case Iop_Min32F0x4:
	case Iop_Sqrt32F0x4:
	case Iop_RecipEst32F0x4:
	case Iop_RSqrtEst32F0x4:
		return S(32, 1, FPOP_OTHER);
	default:
		return False;
	}
}

/* Packed operations on every lane of a 128- or 256-bit vector. */
static Bool packed_op(IROp op, struct fpop *f)
{
	switch (op) {
	case Iop_Add64Fx2:
		return V(64, 2, 128, FPOP_ADD);
	case Iop_Sub64Fx2:
		return V(64, 2, 128, FPOP_SUB);
	case Iop_Mul64Fx2:
	case Iop_Div64Fx2:
	case Iop_Max64Fx2:
	case Iop_Min64Fx2:
	case Iop_Sqrt64Fx2:
	case Iop_RecipEst64Fx2:
	case Iop_RSqrtEst64Fx2:
		return V(64, 2, 128, FPOP_OTHER);
	case Iop_Add64Fx4:
		return V(64, 4, 256, FPOP_ADD);
	case Iop_Sub64Fx4:
		return V(64, 4, 256, FPOP_SUB);
	case Iop_Mul64Fx4:
	case Iop_Div64Fx4:
	case Iop_Max64Fx4:
	case Iop_Min64Fx4:
	case Iop_Sqrt64Fx4:
		return V(64, 4, 256, FPOP_OTHER);
	case Iop_Add32Fx4:
		return V(32, 4, 128, FPOP_ADD);
	case Iop_Sub32Fx4:
		return V(32, 4, 128, FPOP_SUB);
	case Iop_Mul32Fx4:
	case Iop_Div32Fx4:
	case Iop_Max32Fx4:
	case Iop_Min32Fx4:
	case Iop_Sqrt32Fx4:
	case Iop_RecipEst32Fx4:
	case Iop_RSqrtEst32Fx4:
		return V(32, 4, 128, FPOP_OTHER);
	case Iop_Add32Fx8:
		return V(32, 8, 256, FPOP_ADD);
	case Iop_Sub32Fx8:
		return V(32, 8, 256, FPOP_SUB);
	case Iop_Mul32Fx8:
	case Iop_Div32Fx8:
	case Iop_Max32Fx8:
	case Iop_Min32Fx8:
	case Iop_Sqrt32Fx8:
	case Iop_RecipEst32Fx8:
	case Iop_RSqrtEst32Fx8:
		return V(32, 8, 256, FPOP_OTHER);
	default:
		return False;
	}
}

Bool fpop_of(IROp op, struct fpop *f)
{
	return scalar_op(op, f) || lane_op(op, f) || packed_op(op, f);
}

// SPDX-License-Identifier: MIT
/*
 * The label of code several functions have (decoders/kernels/
 * kname_merge.c), on the names an H200 run of PyTorch 2.11 found sharing
 * code (tests/gpu/device-kernel-names.sh with CT_KN_CANDIDATES=1,
 * 2026-11-27): the parts that differ as alternatives, cut between words,
 * none empty; more names than shown counted; hostile lists (the same name
 * twice, empty names) give a label, never a read past a name.  Built under
 * ASan/UBSan too.
 */
#include <stdlib.h>
#include <string.h>

#include "kname_merge.h"
#include "tap.h"

static void is(const char *const *names, uint32_t n, uint32_t total, const char *want,
	       const char *what)
{
	char *got = ct_kname_merge(names, n, total);

	ok_str(got ? got : "(null)", want, what);
	free(got);
}

int main(void)
{
	static const char *const fill[] = {
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<int>, "
		"std::array<char*, 1ul> >(int, at::native::FillFunctor<int>, std::array<char*, 1ul>)",
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
		"std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
	};
	static const char *const gemm[] = {
		"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize64x64x8_stage3_execute_split_k_kernel__5x_cublas",
		"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_execute_split_k_kernel__5x_cublas",
		"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_execute_split_k_kernel__5x_cublas",
		"sm80_xmma_gemm_f32f32_f32f32_f32_tt_n_tilesize64x64x8_stage3_execute_split_k_kernel__5x_cublas",
		"sm90_xmma_trmm_out_place_l_l_n_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3_execute_split_k_kernel__5x_cublas",
	};
	static const char *const word[] = { "k_add", "k_add2" };
	static const char *const scal[] = {
		"void scal_kernel<double, float, 1, true, 6, 5, 5, 3>(cudnnTransposeParams<double>, "
		"double const*, float*, double const*)",
		"void scal_kernel<float, float, 1, true, 6, 5, 5, 3>(cublasTransposeParams<float>, "
		"float const*, float*, float const*)",
	};
	static const char *const fill3[] = { "FillFunctor<int>", "FillFunctor<float>",
					     "FillFunctor<unsigned int>" };
	static const char *const tail[] = { "a_b", "a_b_c" };
	static const char *const suffix_word[] = { "FillFunctor<int>", "FillFunctor<unsigned int>" };
	static const char *const same[] = { "k_add", "k_add" };
	static const char *const empty[] = { "", "k" };

	is(fill, 2, 2,
	   "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<{int|float}>, "
	   "std::array<char*, 1ul> >(int, at::native::FillFunctor<{int|float}>, "
	   "std::array<char*, 1ul>)",
	   "FillFunctor<int> and <float>: each word that differs as alternatives");
	is(gemm, 4, 4,
	   "sm80_xmma_gemm_f32f32_f32f32_f32_{nt|nn|tn|tt}_n_tilesize64x64x8_stage3_execute_split_k_"
	   "kernel__5x_cublas", "cuBLAS's four transposes: one word apart");
	is(gemm, 5, 24,
	   "{sm80|sm90|...}_xmma_{gemm|trmm|...}_{f32f32|out_place_l_l_n_f32f32|...}_f32f32_f32_"
	   "{nt|nn|tn|tt|...}_n_tilesize64x64x8_stage3_execute_split_k_kernel__5x_cublas",
	   "names of other lengths: aligned on the words all have; 24 matched, 5 kept: \"|...\"");
	is(scal, 2, 2,
	   "void scal_kernel<{double|float}, float, 1, true, 6, 5, 5, 3>({cudnnTransposeParams|"
	   "cublasTransposeParams}<{double|float}>, {double|float} const*, float*, "
	   "{double|float} const*)",
	   "cuDNN's and cuBLAS's scal_kernel: each place they differ");
	is(fill3, 3, 3, "FillFunctor<{int|float|unsigned int}>",
	   "int, float and unsigned int: none empty");
	is(tail, 2, 2, "a_{b|b_c}", "one name the other and more at the end");
	is(word, 2, 2, "k_{add|add2}", "one name the start of another: cut between words");
	is(suffix_word, 2, 2, "FillFunctor<{int|unsigned int}>",
	   "a common end inside an alternative (int): no empty alternative");
	is(same, 2, 2, "k_{add}", "the same name twice (a hostile trace): a label");
	is(empty, 2, 2, "{|k}", "an empty name: a label");
	ok(!ct_kname_merge(fill, 1, 1) && !ct_kname_merge(fill, CT_KNAME_MERGE_MAX + 1, 9),
	   "one name, or more than a record holds: none");
	return tap_done();
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe sls: the machine code of sls_unthunked.c and sls_unhardened.c, one
 * function a blob (objcopy of its .text.<fn> section, see Kbuild), as
 * read-only data for speculation.c to read. Each blob ends where the function ends.
 */
#define HP_CODE(name, file)		\
	.globl name, name##_end;	\
	.balign 16;			\
name:					\
	.incbin file;			\
name##_end:

	.section .rodata, "a"
HP_CODE(hp_code_sls_ret_a, HP_BIN_sls_unthunked_hp_sls_ret_a)
HP_CODE(hp_code_sls_ret_b, HP_BIN_sls_unthunked_hp_sls_ret_b)
HP_CODE(hp_code_sls_tail_jmp, HP_BIN_sls_unthunked_hp_sls_tail_jmp)
HP_CODE(hp_code_ctl_ret_a, HP_BIN_sls_unhardened_hp_sls_ret_a)
HP_CODE(hp_code_ctl_ret_b, HP_BIN_sls_unhardened_hp_sls_ret_b)
HP_CODE(hp_code_ctl_tail_jmp, HP_BIN_sls_unhardened_hp_sls_tail_jmp)
HP_CODE(hp_code_ctl_icall, HP_BIN_sls_unhardened_hp_spec_icall)

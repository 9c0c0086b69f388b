/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hardprobe sls: the machine code of spec_sls.c and spec_control.c, one
 * function a blob (objcopy of its .text.<fn> section, see Kbuild), as
 * read-only data for spec.c to read. Each blob ends where the function ends.
 */
#define HP_CODE(name, file)		\
	.globl name, name##_end;	\
	.balign 16;			\
name:					\
	.incbin file;			\
name##_end:

	.section .rodata, "a"
HP_CODE(hp_code_sls_ret_a, HP_BIN_spec_sls_hp_sls_ret_a)
HP_CODE(hp_code_sls_ret_b, HP_BIN_spec_sls_hp_sls_ret_b)
HP_CODE(hp_code_sls_tail_jmp, HP_BIN_spec_sls_hp_sls_tail_jmp)
HP_CODE(hp_code_ctl_ret_a, HP_BIN_spec_control_hp_sls_ret_a)
HP_CODE(hp_code_ctl_ret_b, HP_BIN_spec_control_hp_sls_ret_b)
HP_CODE(hp_code_ctl_tail_jmp, HP_BIN_spec_control_hp_sls_tail_jmp)
HP_CODE(hp_code_ctl_icall, HP_BIN_spec_control_hp_spec_icall)

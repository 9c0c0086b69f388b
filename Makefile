# SPDX-License-Identifier: GPL-2.0
#
# hardprobe: the two commands
#   make run   [TARGET=x86_64-gcc|x86_64-clang|arm64-gcc|arm64-clang] [KVER=6.12|6.1] [EXTRA_CONFIG=f] [CMDLINE=...]
#   make check
#   make matrix [TARGETS="x86_64-gcc ..."] [COMPILERS="clang-22"] [KVERS="6.1 6.12"]   every target, one table
# other kernels in QEMU:
#   make run TARGET=debian                      Debian 12's default kernel (6.1) and its headers
#   make run TARGET=debian-6.12                 Debian 12's 6.12 kernel and its headers
#   make run TARGET=debian-arm64[-6.12]         Debian 12's arm64 kernel (6.1, 6.12), unpacked
#   make run KDIR=<build dir> KIMAGE=<image>    a kernel you built (ARCH=arm64 if so)
# and the module itself against your own kernel:
#   make KDIR=/lib/modules/$(uname -r)/build
# into a kernel tree (drivers/misc/hardprobe, tools/testing/selftests/hardprobe):
#   make intree KSRC=<tree>
# what each installed compiler can do (accepts and emits), whatever the kernel uses:
#   make ccprobe                                prints the table, writes results/compiler.json

KDIR ?= /lib/modules/$(shell uname -r)/build
TARGET ?= x86_64-gcc
# the bench's host tool: each target below is one of its subcommands (hptool --help)
HPTOOL = PYTHONPATH=scripts python3 -m hptool

.PHONY: all modules run check check-debug bench kaslr lkdtm lava lava-lab matrix matrix-render intree ccprobe lint deps clean offcheck

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# KDIR reaches the bench only when the user gave it (not the host default above)
RUN_KDIR = $(if $(filter command line environment,$(origin KDIR)),$(abspath $(KDIR)))
RUN_TARGET = $(if $(KIMAGE)$(RUN_KDIR),$(if $(filter command line,$(origin TARGET)),$(TARGET),custom),$(TARGET))

# TARGET=<arch>-clang-<N>: Debian's clang-N lld-N llvm-N (hptool deps installs what is missing)
RUN_CLANG = $(filter clang-%,$(subst -clang-, clang-,$(TARGET)))
run:
	@EXTRA_PKGS="$(foreach c,$(RUN_CLANG),$(c) lld-$(c:clang-%=%) llvm-$(c:clang-%=%))" \
		$(HPTOOL) deps $(if $(filter arm64% debian-arm64%,$(TARGET) $(ARCH)),--arm64) \
		$(if $(filter debian%,$(TARGET)),--debian=$(TARGET)) $(if $(KVER),--kver=$(KVER))
	@EXTRA_CONFIG="$(if $(EXTRA_CONFIG),$(abspath $(EXTRA_CONFIG)))" CMDLINE="$(CMDLINE)" \
		KDIR="$(RUN_KDIR)" KIMAGE="$(if $(KIMAGE),$(abspath $(KIMAGE)))" ARCH="$(ARCH)" \
		$(HPTOOL) run $(RUN_TARGET)

check:
	@$(HPTOOL) check

# the cost of each code-changing feature on one target (timed in the guest)
bench:
	@$(HPTOOL) deps $(if $(filter arm64%,$(TARGET)),--arm64)
	@$(HPTOOL) bench --run $(TARGET)

# the comparison matrix: run every target (default x86_64-gcc x86_64-clang arm64-gcc
# arm64-clang; COMPILERS=clang-22 adds x86_64-clang-22 and arm64-clang-22), then render
# results/matrix.md, matrix.html, matrix.json
matrix:
	@EXTRA_PKGS="$(foreach c,$(COMPILERS),$(c) lld-$(c:clang-%=%) llvm-$(c:clang-%=%))" \
		$(HPTOOL) deps --arm64 $(foreach v,$(KVERS),--kver=$(v))
	@TARGETS="$(TARGETS)" COMPILERS="$(COMPILERS)" KVERS="$(KVERS)" \
		EXTRA_CONFIG="$(if $(EXTRA_CONFIG),$(abspath $(EXTRA_CONFIG)))" CMDLINE="$(CMDLINE)" \
		$(HPTOOL) matrix

# render the matrix again from the results already there (no runs)
matrix-render:
	@$(HPTOOL) matrix-render $(if $(TARGETS),--targets "$(TARGETS)")

# features turned off (scripts/off-variants): vulnerable, and nothing else changes
offcheck:
	@$(HPTOOL) deps --arm64
	@OFF="$(OFF)" $(HPTOOL) off

# the kernel's text across boots: kaslr.text alone in BOOTS guests (default 8)
kaslr:
	@$(HPTOOL) deps $(if $(filter arm64%,$(TARGET)),--arm64)
	@$(HPTOOL) kaslr $(TARGET) --boots $(or $(BOOTS),8)

# hardprobe and the kernel's own LKDTM on the same kernel: do they agree?
lkdtm:
	@$(HPTOOL) deps $(if $(filter arm64%,$(TARGET)),--arm64)
	@$(HPTOOL) lkdtm $(TARGET)

# the LAVA job (lava/) run by Debian's lava-dispatcher alone, each result beside report.json's
lava:
	@$(HPTOOL) deps $(if $(filter arm64%,$(TARGET)),--arm64)
	@$(HPTOOL) lava $(TARGET)

# a LAVA lab on this machine (lava-server, PostgreSQL, lava-worker; no systemd): make lava's
# job submitted with lavacli, its results read back through the server's API
lava-lab:
	@$(HPTOOL) deps $(if $(filter arm64%,$(TARGET)),--arm64)
	@$(HPTOOL) lava-lab $(TARGET)

# the debug kernel (KASAN, kmemleak, lockdep): safe probes, KUnit, fuzz, 1,000 load cycles
check-debug:
	@$(HPTOOL) check-debug

# drop hardprobe into a kernel tree: make intree KSRC=<tree>
intree:
	@test -n "$(KSRC)" || { echo "usage: make intree KSRC=<kernel tree>" >&2; exit 2; }
	@$(HPTOOL) intree "$(abspath $(KSRC))"

# the compiler layer: gcc-12, aarch64 gcc-12, clang-19, clang-22 (those installed)
ccprobe:
	@$(HPTOOL) ccprobe $(if $(V),-v)

lint:
	@$(HPTOOL) lint

deps:
	@$(HPTOOL) deps --arm64

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf results selftests/hardprobe/hardprobe_test

# SPDX-License-Identifier: GPL-2.0
#
# hardprobe: the two commands
#   make run   [TARGET=x86_64-gcc|x86_64-clang|arm64-gcc|arm64-clang] [EXTRA_CONFIG=f] [CMDLINE=...]
#   make check
# and the module itself against your own kernel:
#   make KDIR=/lib/modules/$(uname -r)/build

KDIR ?= /lib/modules/$(shell uname -r)/build
TARGET ?= x86_64-gcc

.PHONY: all modules run check lint deps clean

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

run:
	@scripts/deps.sh $(if $(filter arm64%,$(TARGET)),--arm64)
	@EXTRA_CONFIG="$(if $(EXTRA_CONFIG),$(abspath $(EXTRA_CONFIG)))" CMDLINE="$(CMDLINE)" \
		scripts/run.sh $(TARGET)

check:
	@scripts/check.sh

lint:
	@scripts/lint.sh

deps:
	@scripts/deps.sh --arm64

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf results selftests/hardprobe/hardprobe_test

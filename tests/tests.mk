# SPDX-License-Identifier: MIT
# Test programs.  Included by the top-level Makefile.

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/unit/%,$(UNIT_SRCS))

# The same unit tests under AddressSanitizer and UBSan, in their own folder.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=undefined
ASAN_BINS  := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/asan/%,$(UNIT_SRCS))

TOOLS := $(OUTPUT)/nvfake $(OUTPUT)/blocker $(OUTPUT)/libioctlcount.so

# The whole decoder under ASan/UBSan too: tests/hostile runs it on bad files.
.PHONY: tests-build
tests-build: $(UNIT_BINS) $(ASAN_BINS) $(TOOLS) $(OUTPUT)/asan/cudatrace-r

$(OUTPUT)/tests/unit/%: tests/unit/%.c $(OUTPUT)/libcudatrace.a $(HEADERS) tests/lib/tap.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -Itests/lib $< $(OUTPUT)/libcudatrace.a -lzstd $(VIEW_LIBS) -o $@

$(OUTPUT)/tests/asan/%: tests/unit/%.c $(LIB_SRCS) $(HEADERS) | $(OUTPUT)/cudatrace.skel.h
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS) $(INCLUDES) -Itests/lib $< $(LIB_SRCS) -lzstd $(VIEW_LIBS) -o $@

$(OUTPUT)/nvfake: tests/nvfake.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -pthread $< -o $@

$(OUTPUT)/blocker: tests/blocker.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/libioctlcount.so: tests/ioctl_count.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -shared -fPIC $< -ldl -o $@

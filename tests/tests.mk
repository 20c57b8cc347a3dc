# SPDX-License-Identifier: MIT
# Test programs.  Included by the top-level Makefile.

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/unit/%,$(UNIT_SRCS))

# The same unit tests under AddressSanitizer and UBSan, in their own folder.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=undefined
ASAN_BINS  := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/asan/%,$(UNIT_SRCS))

TOOLS := $(OUTPUT)/nvfake $(OUTPUT)/blocker $(OUTPUT)/libioctlcount.so $(OUTPUT)/gpfifo_fake

# The whole decoder under ASan/UBSan too: tests/hostile runs it on bad files.
.PHONY: tests-build
tests-build: $(UNIT_BINS) $(ASAN_BINS) $(TOOLS) $(OUTPUT)/asan/cudatrace-r

# A unit test of capture code outside the library names its source here
# (UNIT_EXTRA): built beside the test, and under ASan with it.
$(OUTPUT)/tests/unit/test_codemaps $(OUTPUT)/tests/asan/test_codemaps: UNIT_EXTRA := capture/stacks/codemaps.c

.SECONDEXPANSION:
$(OUTPUT)/tests/unit/%: tests/unit/%.c $(OUTPUT)/libcudatrace.a $(HEADERS) tests/lib/tap.h tests/lib/cache_text.h $$(call obj_of,$$(UNIT_EXTRA))
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -Itests/lib $< $(call obj_of,$(UNIT_EXTRA)) $(OUTPUT)/libcudatrace.a -lzstd -lelf -llz4 -liberty $(VIEW_LIBS) -o $@

$(OUTPUT)/tests/asan/%: tests/unit/%.c $(LIB_SRCS) $(HEADERS) $$(UNIT_EXTRA) | $(OUTPUT)/cudatrace.skel.h
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out -O2,$(CFLAGS)) $(ASAN_FLAGS) $(INCLUDES) -Itests/lib $< $(UNIT_EXTRA) $(LIB_SRCS) -lzstd -lelf -llz4 -liberty $(VIEW_LIBS) -o $@

$(OUTPUT)/nvfake: tests/nvfake.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -pthread $< -o $@

$(OUTPUT)/gpfifo_fake: tests/gpfifo_fake.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -pthread $< -o $@

$(OUTPUT)/blocker: tests/blocker.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/libioctlcount.so: tests/ioctl_count.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -shared -fPIC $< -ldl -o $@

# -k: a stand-in driver library and a program that calls it through dlsym,
# both without frame pointers (tests/stacks/).  libstripped has .dynsym only.
STACK_CFLAGS := -O2 -fomit-frame-pointer -g
STACK_TOOLS := $(OUTPUT)/stacks/libcuda.so.1 $(OUTPUT)/stacks/libstripped.so.1 \
	       $(OUTPUT)/stacks/lld/libcuda.so.1 $(OUTPUT)/stacks/stackprog $(OUTPUT)/stacks/jitprog
tests-build: $(STACK_TOOLS)

$(OUTPUT)/stacks/libcuda.so.1: tests/stacks/fakedrv.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(STACK_CFLAGS) -shared -fPIC -Wl,-soname,libcuda.so.1 $< -pthread -o $@

# The same library linked by lld, which packs segments: the code's first
# page is the read-only segment's last, and code addresses are not file
# offsets (JAX's libraries are linked so).
$(OUTPUT)/stacks/lld/libcuda.so.1: tests/stacks/fakedrv.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(STACK_CFLAGS) -shared -fPIC -fuse-ld=lld -Wl,-soname,libcuda.so.1 $< -pthread -o $@

$(OUTPUT)/stacks/libstripped.so.1: $(OUTPUT)/stacks/libcuda.so.1
	$(call msg,STRIP,$@)
	$(Q)strip --strip-all -o $@ $<

# Generated code in an anonymous mapping (a JIT's stand-in), called from C
# built as the others.
$(OUTPUT)/stacks/jitprog: tests/stacks/jitprog.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(STACK_CFLAGS) $< -o $@

# A library unloaded and another of the same layout loaded where it was.
tests-build: $(OUTPUT)/stacks/remapprog $(OUTPUT)/stacks/libremap_a.so $(OUTPUT)/stacks/libremap_b.so

$(OUTPUT)/stacks/remapprog: tests/stacks/remapprog.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(STACK_CFLAGS) $< -ldl -o $@

$(OUTPUT)/stacks/libremap_%.so: tests/stacks/remaplib.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(STACK_CFLAGS) -shared -fPIC -DTHROUGH=through_lib_$* $< -o $@

$(OUTPUT)/stacks/stackprog: tests/stacks/stackprog.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(STACK_CFLAGS) -fno-stack-clash-protection $< -ldl -pthread -o $@

# -k's tables outside the capture: the thread, lazy tables against whole ones.
KT_OBJS := $(addprefix $(OUTPUT)/obj/,ktables.o uw_rows.o uw_lazy.o cfi_rules.o codemaps.o)

# A lazy table against the whole one, on real files.
tests-build: $(OUTPUT)/stacks/uw_lazy_check

$(OUTPUT)/stacks/uw_lazy_check: tests/stacks/uw_lazy_check.c $(KT_OBJS) $(OUTPUT)/libcudatrace.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CAPTURE_INCLUDES) $< $(KT_OBJS) $(OUTPUT)/libcudatrace.a $(LDLIBS) -pthread -o $@

# -k through a large library (libLLVM-14, where it and its headers and a
# C++ compiler are installed: tests/deps.sh installs them): lazy tables.
LLVM_CONFIG ?= $(shell command -v llvm-config-14 2>/dev/null)
LLVM_HEADER = $(if $(LLVM_CONFIG),$(wildcard $(shell $(LLVM_CONFIG) --includedir)/llvm/Support/CrashRecoveryContext.h))
ifneq ($(and $(LLVM_HEADER),$(shell command -v $(CXX) 2>/dev/null)),)
tests-build: $(OUTPUT)/stacks/llvmprog
endif

$(OUTPUT)/stacks/llvmprog: tests/stacks/llvmprog.cpp
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(STACK_CFLAGS) -I$(shell $(LLVM_CONFIG) --includedir) $< \
		-L$(shell $(LLVM_CONFIG) --libdir) -lLLVM-14 \
		-Wl,-rpath,$(shell $(LLVM_CONFIG) --libdir) -o $@

# Frame names: the symbol index against libdw's own lookup, on real files
# and on a library of hand-made symbols (labels, aliases, overlaps).
tests-build: $(OUTPUT)/stacks/symindex_check $(OUTPUT)/stacks/libsymtricky.so

$(OUTPUT)/stacks/symindex_check: tests/stacks/symindex_check.c $(OUTPUT)/obj/symindex.o $(OUTPUT)/obj/symindex_find.o $(OUTPUT)/libcudatrace.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CAPTURE_INCLUDES) $< $(OUTPUT)/obj/symindex.o $(OUTPUT)/obj/symindex_find.o $(OUTPUT)/libcudatrace.a $(LDLIBS) -o $@

$(OUTPUT)/stacks/libsymtricky.so: tests/stacks/symtricky.S
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -nostdlib $< -o $@

# -k's table thread on real maps: a large file wanted before a small one.
tests-build: $(OUTPUT)/stacks/ktables_order

$(OUTPUT)/stacks/ktables_order: tests/stacks/ktables_order.c $(KT_OBJS) $(OUTPUT)/libcudatrace.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CAPTURE_INCLUDES) $< $(KT_OBJS) $(OUTPUT)/libcudatrace.a $(LDLIBS) -pthread -o $@

# A python that runs from libpython3.X.so (tests/live/python.py): built
# where Debian's python3-dev is (make test installs it).
PY_CONFIG := $(wildcard /usr/bin/python3-config)
ifneq ($(PY_CONFIG),)
tests-build: $(OUTPUT)/python/embed

$(OUTPUT)/python/embed: tests/python/embed.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(shell $(PY_CONFIG) --cflags) $< $(shell $(PY_CONFIG) --ldflags --embed) -o $@
endif

# The kernel namer's mappings thread (capture/kernels/kmaps_keep.c), on a
# stand-in /proc (tests/live/kernel_names.py runs it).
KK_OBJS := $(addprefix $(OUTPUT)/obj/,kmaps_keep.o codemaps.o privs.o)
tests-build: $(OUTPUT)/kernels/kmaps_keep_check

$(OUTPUT)/kernels/kmaps_keep_check: tests/kernels/kmaps_keep_check.c $(KK_OBJS) $(OUTPUT)/libcudatrace.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CAPTURE_INCLUDES) -Itests/lib $< $(KK_OBJS) $(OUTPUT)/libcudatrace.a $(LDLIBS) -pthread -o $@

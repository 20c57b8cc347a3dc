# SPDX-License-Identifier: MIT
#
# cudatrace: make            build ./cudatrace
#            make deps       install what the build needs (Debian 12, as root)
#            make test-deps  that and what the tests need (Prometheus, PyYAML, ...)
#            make test       test-deps + build + every test (unit, golden, live BPF)
#            make demo       decode a real H100 trace from traces/
#            make STATIC=1   ./cudatrace-static, fully static, for machines without packages
#            V=1             show the commands
#            BPF_DEFS=-DNAME=V   defines for the BPF object (measuring variants)

ifeq ($(STATIC),1)
OUTPUT  ?= build/static
BIN     ?= cudatrace-static
else
OUTPUT  ?= build
BIN     ?= cudatrace
endif
CC      ?= cc
CLANG   ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
ARCH    := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-missing-field-initializers
# Layers point down (docs/ARCHITECTURE.md):
#   user/ -> capture/ -> views/ -> decoders/ -> format/ (+ bpf/cudatrace.h) -> lib/
# Each layer's objects see only the headers of their own folders and of the
# layers below, so an include that climbs up fails the build.
LIB_DIRS     := lib
FORMAT_DIRS  := bpf format
DECODER_DIRS := decoders decoders/tables decoders/layouts decoders/gputables \
		decoders/gpuwork decoders/stacks decoders/kernels
VIEW_DIRS    := views views/sqlite views/metrics views/compat
CAPTURE_DIRS := capture capture/stacks capture/python capture/gpuwork capture/kernels
USER_DIRS    := user
inc_of = $(addprefix -I,$(1))
LIB_INCLUDES     := $(call inc_of,$(LIB_DIRS))
FORMAT_INCLUDES  := $(call inc_of,$(FORMAT_DIRS)) $(LIB_INCLUDES)
DECODER_INCLUDES := -I$(OUTPUT) $(call inc_of,$(DECODER_DIRS)) $(FORMAT_INCLUDES)
VIEW_INCLUDES    := $(call inc_of,$(VIEW_DIRS)) $(DECODER_INCLUDES)
CAPTURE_INCLUDES := $(call inc_of,$(CAPTURE_DIRS)) $(VIEW_INCLUDES)
INCLUDES         := $(call inc_of,$(USER_DIRS)) $(CAPTURE_INCLUDES)
# sqlite3 for --sqlite, libmicrohttpd for --metrics.  Debian's static
# libmicrohttpd needs GnuTLS, and GnuTLS p11-kit, which Debian ships no
# static archive of: the static build makes its own, without TLS, from
# Debian's source package (static/libmicrohttpd.sh).
VIEW_LIBS := -lsqlite3 -lmicrohttpd -lpthread -lm
ifeq ($(STATIC),1)
LDFLAGS += -static
MHD_DIR := $(OUTPUT)/microhttpd
MHD_LIB := $(MHD_DIR)/lib/libmicrohttpd.a
CFLAGS  += -I$(MHD_DIR)/include
LDFLAGS += -L$(MHD_DIR)/lib
endif
# libdw (and libiberty's demangler) unwind and name -k stacks; static libdw
# pulls in every decompressor elfutils was built with.  liblz4 and libzstd
# unpack the cubins of fatbins (--gpu-work's kernel names).
LDLIBS  := -lbpf -ldw -lelf -liberty -lz -lzstd -llz4 $(VIEW_LIBS)
ifeq ($(STATIC),1)
LDLIBS  += -llzma -lbz2 -ldl
endif

.DEFAULT_GOAL := all

include decoders/tables/tables.mk
include decoders/layouts/layouts.mk
include capture/python/pyabi.mk
include views/compat/compat.mk
include decoders/gpuwork/gpuwork.mk

srcs_in = $(foreach d,$(1),$(wildcard $(d)/*.c))
LIB_C_SRCS   := $(call srcs_in,$(LIB_DIRS))
FMT_SRCS     := $(call srcs_in,format)
DEC_SRCS     := $(call srcs_in,$(DECODER_DIRS)) $(NVTABLES_SRC) $(LAYOUTS_SRC) $(GWTABLES_SRC)
VIEW_SRCS    := $(call srcs_in,$(VIEW_DIRS)) $(COMPAT_DATA_SRC)
CAPTURE_ALL  := $(call srcs_in,$(CAPTURE_DIRS)) $(PYABI_SRC)
USER_SRCS    := $(call srcs_in,$(USER_DIRS))
# What needs the BPF skeleton or libdw stays out of the tests' library.
CAPTURE_SRCS := $(wildcard capture/capture*.c) capture/detach.c capture/heap_prefault.c
CAPTURE_SRCS += capture/stacks/unwind.c capture/stacks/symbolize.c capture/stacks/symindex.c capture/stacks/symindex_find.c \
		capture/stacks/cfi_rules.c
CAPTURE_SRCS += capture/stacks/codemaps.c capture/stacks/uw_rows.c capture/stacks/uw_lazy.c capture/stacks/ktables.c
CAPTURE_SRCS += capture/python/python.c capture/python/pyelf.c
CAPTURE_SRCS += capture/kernels/knames_live.c capture/kernels/kmaps_keep.c
CAPTURE_OBJS := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(notdir $(CAPTURE_SRCS)))
# Everything but main: the tests link against it.
LIB_SRCS  := $(filter-out user/main.c,$(USER_SRCS)) $(filter-out $(CAPTURE_SRCS),$(CAPTURE_ALL)) \
	     $(VIEW_SRCS) $(DEC_SRCS) $(FMT_SRCS) $(LIB_C_SRCS)
LIB_OBJS  := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(notdir $(LIB_SRCS)))
ALL_DIRS  := $(USER_DIRS) $(CAPTURE_DIRS) $(VIEW_DIRS) $(DECODER_DIRS) $(FORMAT_DIRS) $(LIB_DIRS)
HEADERS   := $(foreach d,$(ALL_DIRS),$(wildcard $(d)/*.h)) $(NVFACTS_H)
obj_of     = $(patsubst %.c,$(OUTPUT)/obj/%.o,$(notdir $(1)))

vpath %.c $(ALL_DIRS) $(OUTPUT)

.PHONY: all deps test-deps test demo clean install fuzz bench soak docs
all: $(BIN)

# --- BPF object and skeleton ------------------------------------------------
$(OUTPUT)/cudatrace.bpf.o: bpf/cudatrace.bpf.c $(wildcard bpf/*.h)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(BPF_DEFS) -Ibpf -c $< -o $@

$(OUTPUT)/cudatrace.skel.h: $(OUTPUT)/cudatrace.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name cudatrace_bpf > $@.tmp && mv -f $@.tmp $@

# --- user space -------------------------------------------------------------
$(OUTPUT)/obj/%.o: %.c $(HEADERS) | $(OUTPUT)/cudatrace.skel.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(INCLUDES) -c $< -o $@

$(call obj_of,$(CAPTURE_ALL)): INCLUDES := $(CAPTURE_INCLUDES)
$(call obj_of,$(VIEW_SRCS)): INCLUDES := $(VIEW_INCLUDES)
$(call obj_of,$(DEC_SRCS)): INCLUDES := $(DECODER_INCLUDES)
$(call obj_of,$(FMT_SRCS)): INCLUDES := $(FORMAT_INCLUDES)
$(call obj_of,$(LIB_C_SRCS)): INCLUDES := $(LIB_INCLUDES)

# capture_bpf.c embeds the BPF object through the skeleton: rebuild it with it.
$(OUTPUT)/obj/capture_bpf.o: $(OUTPUT)/cudatrace.skel.h

ifeq ($(STATIC),1)
$(MHD_LIB):
	$(call msg,BUILD,$@)
	$(Q)MHD_DSC="$(MHD_DSC)" static/libmicrohttpd.sh $(MHD_DIR)

$(OUTPUT)/obj/metrics_http.o: $(MHD_LIB)
endif

$(OUTPUT)/libcudatrace.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BIN): $(OUTPUT)/obj/main.o $(CAPTURE_OBJS) $(OUTPUT)/libcudatrace.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# --- docs made from the option table (user/cli_table.c) ----------------------
# The man page's OPTIONS section and the bash completion come from the
# binary (--help=man|bash); tests/docs/options.py checks they are current.
docs: $(BIN)
	$(call msg,GEN,docs/cudatrace.8)
	$(Q)./$(BIN) --help=man | sed -e '/^@OPTIONS@$$/{r /dev/stdin' -e 'd}' \
		docs/cudatrace.8.in > docs/cudatrace.8.tmp && mv docs/cudatrace.8.tmp docs/cudatrace.8
	$(call msg,GEN,docs/cudatrace.bash-completion)
	$(Q)./$(BIN) --help=bash > docs/cudatrace.bash-completion

# --- set-up, tests, demo ----------------------------------------------------
deps:
	$(Q)tests/deps.sh build

test-deps:
	$(Q)tests/deps.sh build test

test: test-deps
	$(Q)$(MAKE) --no-print-directory all tests-build
	$(Q)tests/run.sh

bench: ; $(Q)bench/run.sh

include tests/tests.mk
-include tests/fuzz/fuzz.mk

DEMO_TRACE ?= $(firstword $(wildcard traces/*saxpy*.ctrace) $(wildcard traces/*.ctrace))
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	@echo "== cudatrace -r $(DEMO_TRACE)   (real capture; see traces/README.md)"
	$(Q)./cudatrace -r $(DEMO_TRACE) | head -n 60
	@echo "== ... ($$(./cudatrace -r $(DEMO_TRACE) | wc -l) lines; try: ./cudatrace -r $(DEMO_TRACE) --json)"

# A 10-minute capture under steady load; prints the tracer's RSS (MINUTES=N).
soak: all tests-build
	$(Q)tests/soak.sh

# PREFIX and DESTDIR as usual: make install DESTDIR=/tmp/pkg PREFIX=/usr
PREFIX ?= /usr/local
install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/sbin/cudatrace
	install -D -m 0644 docs/cudatrace.8 $(DESTDIR)$(PREFIX)/share/man/man8/cudatrace.8
	install -D -m 0644 docs/cudatrace.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/cudatrace

clean:
	rm -rf build cudatrace cudatrace-static

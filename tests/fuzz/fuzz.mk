# SPDX-License-Identifier: MIT
#
# Fuzzing and sanitizer builds.  Included by the top-level Makefile, which
# sets OUTPUT, CC, INCLUDES, LIB_SRCS (with the generated nvtables_data.c and
# layouts_data.c), LDLIBS, HEADERS, Q and msg.  See docs/RELIABILITY.md.
#
#   make fuzz [FUZZ_SECONDS=60]   fuzz for that long, starting from
#                                 tests/fuzz/corpus + fresh seeds + the
#                                 regression inputs; non-zero on a crash, whose
#                                 input is copied to tests/fuzz/regress/
#   make fuzz-regress             every corpus and regression input once (CI)
#   make fuzz-merge               rewrite tests/fuzz/corpus/ as the minimal set
#                                 of inputs that keeps the last run's coverage
#   make $(OUTPUT)/asan/cudatrace-r
#                                 cudatrace under ASan+UBSan (tests/hostile
#                                 prefers it)
#
# libFuzzer comes with clang (Debian: libclang-rt-14-dev).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=
FUZZ_DIR     := $(OUTPUT)/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_trace
FUZZ_CFLAGS  := -g -O1 -std=gnu11 -fno-omit-frame-pointer \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# Every run: a crash on any input is a failure; 10 s per input is a hang.
FUZZ_RUNOPTS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/
FUZZ_INPUTS   = $(shell find tests/fuzz/corpus tests/fuzz/regress -type f ! -name 'README*' 2>/dev/null | sort)

SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	     -fno-sanitize-recover=undefined

.PHONY: fuzz fuzz-build fuzz-regress fuzz-merge

fuzz-build: $(FUZZ_BIN)

$(FUZZ_BIN): tests/fuzz/fuzz_trace.c $(LIB_SRCS) $(HEADERS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(INCLUDES) $< $(LIB_SRCS) $(LDLIBS) -o $@ || { \
		echo "fuzz: $(FUZZ_CC) could not build a libFuzzer binary; if it says it cannot" \
		     "find the fuzzer runtime (libclang_rt.fuzzer), install libclang-rt-14-dev" \
		     "(Debian 12) or your clang's compiler-rt" >&2; exit 1; }

# The corpus is copied: libFuzzer writes what it finds into the first folder.
fuzz: $(FUZZ_BIN)
	$(Q)rm -rf $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds $(FUZZ_DIR)/fuzz.rc
	$(Q)mkdir -p $(FUZZ_DIR)/corpus tests/fuzz/regress
	$(Q)cp tests/fuzz/corpus/* $(FUZZ_DIR)/corpus/ 2>/dev/null || true
	$(Q)tests/fuzz/make-seeds.sh $(FUZZ_DIR)/seeds
	@echo "== fuzzing for $(FUZZ_SECONDS) s: $(FUZZ_BIN) (log: $(FUZZ_DIR)/fuzz.log)"
	$(Q){ $(FUZZ_BIN) $(FUZZ_RUNOPTS) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) \
		$(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds tests/fuzz/regress 2>&1; \
		echo $$? > $(FUZZ_DIR)/fuzz.rc; } | tee $(FUZZ_DIR)/fuzz.log | \
		grep -a --line-buffered -E '^#[0-9]+[[:space:]]+(pulse|DONE|INITED)|ERROR|SUMMARY|runtime error|Test unit written|^stat::'
	@echo "== results"
	$(Q)grep -a -E '^#[0-9]+[[:space:]]+DONE' $(FUZZ_DIR)/fuzz.log | tail -n 1 || true
	$(Q)echo "corpus: $$(ls $(FUZZ_DIR)/corpus | wc -l) files, $$(cat $(FUZZ_DIR)/corpus/* | wc -c) bytes" \
		"(make fuzz-merge keeps the minimal set in tests/fuzz/corpus/)"
	$(Q)rc=$$(cat $(FUZZ_DIR)/fuzz.rc); \
	if [ "$$rc" != 0 ]; then \
		grep -a -A 24 -E '==ERROR|runtime error|ERROR: libFuzzer' $(FUZZ_DIR)/fuzz.log | head -n 40 >&2; \
		for f in $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/leak-* $(FUZZ_DIR)/timeout-* \
			 $(FUZZ_DIR)/oom-* $(FUZZ_DIR)/slow-unit-*; do \
			[ -f "$$f" ] || continue; \
			cp "$$f" tests/fuzz/regress/ && \
			echo "fuzz: failing input $$f copied to tests/fuzz/regress/$${f##*/}"; \
		done; \
		echo "fuzz: FAILED (libFuzzer exit $$rc); reproduce: $(FUZZ_BIN) tests/fuzz/regress/FILE" >&2; \
		exit 1; \
	fi

# Each input run once, no mutation: seconds, for CI.
fuzz-regress: $(FUZZ_BIN)
	$(call msg,FUZZ-RUN,tests/fuzz/corpus tests/fuzz/regress)
	$(Q)$(FUZZ_BIN) $(FUZZ_RUNOPTS) $(FUZZ_INPUTS) > $(FUZZ_DIR)/regress.log 2>&1 || { \
		grep -a -v '^Running: \|^Executed ' $(FUZZ_DIR)/regress.log | tail -n 60 >&2; \
		echo "fuzz-regress: FAILED (full log: $(FUZZ_DIR)/regress.log)" >&2; exit 1; }
	@echo "fuzz-regress: $$(grep -a -c '^Executed ' $(FUZZ_DIR)/regress.log) inputs, no crash"

# Inputs are judged on their first FUZZ_MERGE_MAX_LEN bytes and kept cut
# to that, which keeps the committed corpus small (seeds cut from the real
# traces, big ones included, are made afresh by every `make fuzz`).
FUZZ_MERGE_MAX_LEN ?= 2048
FUZZ_MERGE_DIRS    ?= $(wildcard $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds)
fuzz-merge: $(FUZZ_BIN)
	$(Q)rm -rf $(FUZZ_DIR)/merged && mkdir -p $(FUZZ_DIR)/merged
	$(Q)$(FUZZ_BIN) -merge=1 -max_len=$(FUZZ_MERGE_MAX_LEN) $(FUZZ_RUNOPTS) $(FUZZ_DIR)/merged \
		tests/fuzz/corpus $(FUZZ_MERGE_DIRS) > $(FUZZ_DIR)/merge.log 2>&1 || { \
		tail -n 30 $(FUZZ_DIR)/merge.log >&2; exit 1; }
	$(Q)grep -a 'MERGE-OUTER: [0-9]* new files' $(FUZZ_DIR)/merge.log || true
	$(Q)rm -rf tests/fuzz/corpus && mkdir -p tests/fuzz/corpus && \
		for f in $(FUZZ_DIR)/merged/*; do \
			head -c $(FUZZ_MERGE_MAX_LEN) "$$f" > tests/fuzz/corpus/$${f##*/}; done
	@echo "tests/fuzz/corpus: $$(ls tests/fuzz/corpus | wc -l) files, $$(cat tests/fuzz/corpus/* | wc -c) bytes"

# The real binary under AddressSanitizer + UBSan (links libbpf like the
# real one; only -r is exercised by the tests).
$(OUTPUT)/asan/cudatrace-r: user/main.c $(CAPTURE_SRCS) $(LIB_SRCS) $(HEADERS) | $(OUTPUT)/cudatrace.skel.h
	$(call msg,CC-ASAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 $(SAN_FLAGS) $(INCLUDES) user/main.c $(CAPTURE_SRCS) $(LIB_SRCS) \
		$(LDLIBS) -o $@

# The fatbin and cubin readers (capture/kernels/, tests/fuzz/fuzz_fatbin.c),
# from the real fatbins and cubins of tests/kernels/ and traces/kernels/:
#   make fuzz-fatbin [FUZZ_SECONDS=60]   fuzz; a crash's input goes to
#                                        tests/fuzz/regress-fatbin/
#   make fuzz-fatbin-regress             the seeds and regression inputs once
FUZZ_FATBIN      := $(FUZZ_DIR)/fuzz_fatbin
FATBIN_SRCS      := $(wildcard capture/kernels/fatbin.c capture/kernels/cubin.c \
		      capture/kernels/kindex.c capture/kernels/embedded.c) lib/idmap.c lib/grow.c lib/msg.c
FATBIN_SEEDS      = $(wildcard tests/kernels/*.fatbin tests/kernels/*.cubin \
		      traces/kernels/*.nv_fatbin tests/fuzz/regress-fatbin/*)

.PHONY: fuzz-fatbin fuzz-fatbin-regress
$(FUZZ_FATBIN): tests/fuzz/fuzz_fatbin.c $(FATBIN_SRCS) $(HEADERS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(INCLUDES) $< $(FATBIN_SRCS) -lelf -lzstd -llz4 -o $@

fuzz-fatbin: $(FUZZ_FATBIN)
	$(Q)rm -rf $(FUZZ_DIR)/fatbin-corpus && mkdir -p $(FUZZ_DIR)/fatbin-corpus tests/fuzz/regress-fatbin
	$(Q)cp $(FATBIN_SEEDS) $(FUZZ_DIR)/fatbin-corpus/
	$(Q)$(FUZZ_FATBIN) $(FUZZ_RUNOPTS) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) \
		$(FUZZ_DIR)/fatbin-corpus > $(FUZZ_DIR)/fatbin.log 2>&1 || { \
		grep -a -A 24 -E '==ERROR|runtime error|ERROR: libFuzzer' $(FUZZ_DIR)/fatbin.log | head -n 40 >&2; \
		for f in $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/leak-* $(FUZZ_DIR)/timeout-* $(FUZZ_DIR)/oom-*; do \
			[ -f "$$f" ] && cp "$$f" tests/fuzz/regress-fatbin/; done; \
		echo "fuzz-fatbin: FAILED (log: $(FUZZ_DIR)/fatbin.log)" >&2; exit 1; }
	@grep -a -E '^#[0-9]+[[:space:]]+DONE' $(FUZZ_DIR)/fatbin.log | tail -n 1

fuzz-fatbin-regress: $(FUZZ_FATBIN)
	$(call msg,FUZZ-RUN,fatbin seeds)
	$(Q)$(FUZZ_FATBIN) $(FUZZ_RUNOPTS) $(FATBIN_SEEDS) > $(FUZZ_DIR)/fatbin-regress.log 2>&1 || { \
		tail -n 60 $(FUZZ_DIR)/fatbin-regress.log >&2; echo "fuzz-fatbin-regress: FAILED" >&2; exit 1; }
	@echo "fuzz-fatbin-regress: $$(grep -a -c '^Executed ' $(FUZZ_DIR)/fatbin-regress.log) inputs, no crash"

# SPDX-License-Identifier: MIT
# --gpu-work's tables (docs/GPUWORK.md): decoders/gputables/*.tsv, made by
# decoders/gputables/import.sh from NVIDIA's class headers, turned
# into C here; kparams.tsv and kvalues.tsv (CUDA's own kernels'
# parameters and sizes, measured) are kept by hand beside them.  Included
# by the top-level Makefile.
GWTABLES_SRC  := $(OUTPUT)/gwtables_data.c
GWTABLE_TSVS  := decoders/gputables/methods.tsv decoders/gputables/fields.tsv \
		 decoders/gputables/kparams.tsv decoders/gputables/values.tsv \
		 decoders/gputables/kvalues.tsv

$(GWTABLES_SRC): decoders/gputables/gen.awk $(GWTABLE_TSVS)
	$(Q)mkdir -p $(@D)
	$(Q)$(AWK) -f $< $(GWTABLE_TSVS) > $@.tmp || { rm -f $@.tmp; exit 1; }
	$(Q)mv -f $@.tmp $@

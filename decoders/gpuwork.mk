# SPDX-License-Identifier: MIT
# --gpu-work's tables (docs/GPUWORK.md): decoders/tables/gw_*.tsv, made by
# decoders/tables/import-gpuwork.sh from NVIDIA's class headers, turned
# into C here.  Included by the top-level Makefile.
GWTABLES_SRC  := $(OUTPUT)/gwtables_data.c
GWTABLE_TSVS  := decoders/tables/gw_methods.tsv decoders/tables/gw_fields.tsv \
		 decoders/tables/gw_values.tsv

$(GWTABLES_SRC): decoders/tables/gen-gpuwork.awk $(GWTABLE_TSVS)
	$(Q)mkdir -p $(@D)
	$(Q)$(AWK) -f $< $(GWTABLE_TSVS) > $@.tmp || { rm -f $@.tmp; exit 1; }
	$(Q)mv -f $@.tmp $@

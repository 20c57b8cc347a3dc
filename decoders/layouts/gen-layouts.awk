# SPDX-License-Identifier: MIT
#
# gen-layouts.awk: turn the struct field layouts in decoders/layouts/*.tsv
# into one C file of data (on stdout): the arrays that decoders/layouts/layouts.c
# searches (ct_layout_tab[], sorted, and ct_layouts_tag), no code:
#
#   awk -f decoders/nvdata.awk -f decoders/layouts/gen-layouts.awk decoders/layouts/*.tsv \
#       > build/layouts_data.c
#
# (decoders/nvdata.awk: die, hexval, file_table and tag_line, shared with
# gen-tables.awk and the importers.)
#
# The inputs are recognised by file name, which gives the family:
#
#   escape_fields.tsv  NV_ESC_* params, key = escape nr       (required)
#   uvm_fields.tsv     UVM params, key = UVM request number    (required)
#   uvm_api_fields.tsv UVM params at every tag, same family     (optional)
#   escape_probe_fields.tsv escape structs nvabi has no fields for (optional)
#   ctrl_fields.tsv    RM control params, key = NVOS54 cmd     (optional)
#   alloc_fields.tsv   RM alloc params, key = NVOS21/64 hClass (optional)
#   alloc_gvisor_fields.tsv the same, for drivers newer than shared/nvabi,
#                      from gVisor's pkg/abi/nvgpu (by hand, with its #From) (optional)
#   refine.tsv         what the headers' types do not say      (optional)
#   array_elems.tsv    the entries of counted arrays          (optional)
#
# Rows are tab-separated, one per field:
#
#   key  struct_name  struct_size  field  offset  size  kind  drivers
#
# key is hex, drivers "first..last" driver tag.  A field name is a C member
# path: identifiers joined by '.', each optionally indexed ("a.b[2].c").
# The rows of one layout share key, struct_size and drivers.  A
# malformed row, a field that runs past its struct or overlaps another, a
# size that does not suit the kind, or two different layouts of one key and
# size whose driver ranges overlap is an error: a message on stderr, exit
# status 1, nothing on stdout.  The same layout (name and fields) given for
# overlapping ranges becomes one layout over their union: uvm_fields.tsv has
# the 580.142 UVM structs, uvm_api_fields.tsv every tag.
#
# refine.tsv rows, applied to every layout of the struct after all files
# are read (the generated files are not edited by hand):
#
#   struct_name  field  new_field  offset  size  kind  why
#
# replace field by new_field at field's offset + offset.  Several rows for
# one field split it (a union read as its one used member); one row may
# just change the kind (an NvU32 that holds a handle).  A row that matches
# no field is an error, so stale refinements do not linger.
#
# array_elems.tsv rows (made by import-elements.sh from the headers) say
# what one entry of an array holds, for an array that the files above give
# as one bytes field (longer than 8 entries, or of 1-byte entries):
#
#   struct_name  array  elem_size  member  offset  size  kind  drivers
#
# member is "-" for an entry that is one scalar (offset 0, size elem_size),
# else a member path inside the entry ("index", "vidMemUsage.memPrivate").
# The rows of one (struct_name, array, drivers) are one entry layout; it is
# given to the array of every layout of that struct whose drivers range lies
# inside its own and whose size is a whole number of entries.  An entry
# layout that no layout takes is an error (a stale file).  Such an array is
# counted in entries (derive_kinds), and the C data gets the entry layouts
# (ct_elem_tab[]; ct_field.elem indexes it, 0 for none).
#
# With -v list=arrays the program prints, instead of C, the arrays that
# want an entry layout (whole bytes fields with a count of entries beside
# them, after refine.tsv): struct_name, array, size, offset, struct_size,
# drivers, family (escape, UVM, control, class) and key; import-elements.sh
# reads that list.
#
# Plain POSIX awk (mawk is the awk of minimal Debian): no strtonum, asort or
# regex intervals, so hex is parsed by hand and the sort is our own.

BEGIN {
	prog = "gen-layouts.awk"
	FS = "\t"
	# File name -> family (enum ct_layout_family), key width in hex digits.
	fam_of["escape_fields"] = 0; keyw["escape_fields"] = 2   # _IOC_NR is 8 bits
	fam_of["escape_probe_fields"] = 0; keyw["escape_probe_fields"] = 2
	fam_of["uvm_fields"] = 1;    keyw["uvm_fields"] = 8
	fam_of["uvm_api_fields"] = 1; keyw["uvm_api_fields"] = 8
	fam_of["ctrl_fields"] = 2;   keyw["ctrl_fields"] = 8
	fam_of["alloc_fields"] = 3;  keyw["alloc_fields"] = 8
	fam_of["alloc_gvisor_fields"] = 3; keyw["alloc_gvisor_fields"] = 8
	NFAM = 4
	fam_c[0] = "CT_LAYOUT_ESCAPE"; fam_c[1] = "CT_LAYOUT_UVM"
	fam_c[2] = "CT_LAYOUT_CTRL";   fam_c[3] = "CT_LAYOUT_ALLOC"
	fam_label[0] = "escape"; fam_label[1] = "UVM"; fam_label[2] = "control"; fam_label[3] = "class"
	# kind -> enum, and the sizes it allows ("" = any).
	split("u s handle status ptr bool uuid fd class bytes handles addr size count", kl, " ")
	split("U S HANDLE STATUS PTR BOOL UUID FD CLASS BYTES HANDLES ADDR SIZE COUNT", ke, " ")
	for (i = 1; i <= 14; i++) kind_c[kl[i]] = "CT_FK_" ke[i]
	ksizes["u"] = ksizes["s"] = " 1 2 4 8 "
	ksizes["handle"] = ksizes["status"] = ksizes["fd"] = ksizes["class"] = " 4 "
	ksizes["ptr"] = " 8 "; ksizes["bool"] = " 1 "; ksizes["bytes"] = ""
	ksizes["uuid"] = ""      # 16, or a buffer that holds one (its count says how much)
	ksizes["handles"] = ""   # an array of NvHandle: any multiple of 4
	ksizes["addr"] = ksizes["size"] = " 4 8 "; ksizes["count"] = " 1 2 4 8 "
	# Kinds from names (derive_kinds()): an NvU64 whose last name part ends
	# so holds an address, or a size of address space.
	ADDR_END = "([Aa]ddr|[Aa]ddress|Addr(Lo|Hi)|[Bb]ase|V[Aa]|P[Aa]|[Oo]ffset|[Ll]imit|Ptr)$"
	ADDR_ALL = "^(range|va)(Lo|Hi|Begin|End)$"
	SIZE_END = "([Ss]ize|[Ll]ength|Size(In)?Bytes|[Aa]lign(ment)?)$"
	IDENT = "[A-Za-z_][A-Za-z0-9_]*"
	MEMBER = IDENT "(\\[[0-9]+\\])?"
}

# A uint32 in decimal, as a number; dies on anything else.
function u32(s, what) {
	if (s !~ /^[0-9]+$/ || length(s) > 10 || s + 0 > 4294967295) die("bad " what " \"" s "\"")
	return s + 0
}

# Driver tag -> major*1000000 + minor*1000 + patch, as ct_driver_version().
function ver(s,    p, n, i) {
	n = split(s, p, ".")
	if (n < 2 || n > 3) die("bad driver tag \"" s "\"")
	for (i = 1; i <= n; i++)
		if (p[i] !~ /^[0-9]+$/ || length(p[i]) > 4 || (i > 1 && p[i] + 0 > 999) || p[1] + 0 > 4293)
			die("bad driver tag \"" s "\"")
	return p[1] * 1000000 + p[2] * 1000 + (n == 3 ? p[3] : 0)
}

FNR == 1 {
	t = file_table(FILENAME)
	if (t == "refine") { ftag = "-"; seen_file[t] = 1; next }
	if (!(t in fam_of) && t != "array_elems")
		die("unknown layout file (expected escape_fields.tsv, escape_probe_fields.tsv, uvm_fields.tsv, uvm_api_fields.tsv, ctrl_fields.tsv, alloc_fields.tsv, alloc_gvisor_fields.tsv, refine.tsv or array_elems.tsv)")
	if (t in seen_file) die("file given twice")
	seen_file[t] = 1
	ftag = ""
}

/^#Tag / { tag_line(); next }

/^#/ { next }

# A field of name f may have kind k at size sz; dies otherwise.
function check_kind(f, k, sz) {
	if (!(k in kind_c)) die("unknown kind \"" k "\"")
	if (sz == 0) die("field " f " has size 0")
	if (k == "handles" && sz % 4) die("field " f ": kind handles needs a multiple of 4 bytes")
	if (k == "uuid" && sz < 16) die("field " f ": kind uuid needs 16 bytes or more")
	if (ksizes[k] != "" && index(ksizes[k], " " sz " ") == 0)
		die("field " f ": kind " k " cannot be " sz " bytes")
}

# Driver range "first..last" into rsince, runtil.
function drivers(s,    p) {
	p = index(s, "..")
	if (p == 0) die("bad drivers \"" s "\" (want first..last)")
	rsince = ver(substr(s, 1, p - 1))
	runtil = ver(substr(s, p + 2))
	if (rsince > runtil) die("drivers range \"" s "\" runs backwards")
}

t == "array_elems" {
	if (index($0, "\r")) die("carriage return in row (CRLF line ends?)")
	if (NF != 8) die("expected 8 tab-separated fields, got " NF)
	if (ftag == "") die("data row before the #Tag line")
	if ($1 !~ "^" IDENT "$") die("bad struct name \"" $1 "\"")
	if ($2 !~ "^" IDENT "([.]" IDENT ")*$") die("bad array name \"" $2 "\"")
	if ($4 != "-" && $4 !~ "^" MEMBER "([.]" MEMBER ")*$") die("bad member name \"" $4 "\"")
	esz = u32($3, "entry size")
	if (esz == 0) die("entry size 0")
	off = u32($5, "offset")
	fsz = u32($6, "size")
	check_kind($4, $7, fsz)
	if (off + fsz > esz) die("member " $4 " (" off "+" fsz ") runs past its entry (" esz " bytes)")
	if ($4 == "-" && (off != 0 || fsz != esz)) die("a scalar entry (-) is the whole entry")
	drivers($8)
	E = $1 SUBSEP $2 SUBSEP $8
	if (!(E in eid)) {
		e = eid[E] = ++ne
		estruct[e] = $1; earr[e] = $2; esize[e] = esz; edrv[e] = $8
		esince[e] = rsince; euntil[e] = runtil; ewhere[e] = FILENAME ":" FNR
		eof[$1, $2] = eof[$1, $2] " " e
	} else {
		e = eid[E]
		if (esize[e] != esz) die("entry size " esz " differs from " esize[e] " in the rows before")
	}
	if ((e, $4) in emseen) die("member " $4 " given twice")
	if (($4 == "-" && nem[e]) || (e, "-") in emseen) die("a scalar entry (-) has one row")
	emseen[e, $4] = 1
	n = ++nem[e]
	emname[e, n] = $4; emoff[e, n] = off; emsize[e, n] = fsz; emkind[e, n] = $7
	count[t]++
	next
}

t == "refine" {
	if (NF != 7) die("expected 7 tab-separated fields, got " NF)
	if ($1 !~ "^" IDENT "$") die("bad struct name \"" $1 "\"")
	if ($2 !~ "^" MEMBER "([.]" MEMBER ")*$" || $3 !~ "^" MEMBER "([.]" MEMBER ")*$")
		die("bad field name")
	if (!($6 in kind_c)) die("unknown kind \"" $6 "\"")
	R = $1 SUBSEP $2
	n = ++rn[R]
	rname[R, n] = $3; roff[R, n] = u32($4, "offset"); rsize[R, n] = u32($5, "size")
	rkind[R, n] = $6; rwhere[R] = FILENAME ":" FNR
	if (rsize[R, n] == 0) die("size 0")
	if (ksizes[$6] != "" && index(ksizes[$6], " " rsize[R, n] " ") == 0)
		die("kind " $6 " cannot be " rsize[R, n] " bytes")
	if ($6 == "handles" && rsize[R, n] % 4) die("kind handles needs a multiple of 4 bytes")
	if ($6 == "uuid" && rsize[R, n] < 16) die("kind uuid needs 16 bytes or more")
	count[t]++
	next
}

{
	if (index($0, "\r")) die("carriage return in row (CRLF line ends?)")
	if (NF != 8) die("expected 8 tab-separated fields, got " NF)
	if (ftag == "") die("data row before the #Tag line")

	k = tolower($1)
	if (k !~ /^0x[0-9a-f]+$/ || length(k) > keyw[t] + 2)
		die("bad key \"" $1 "\" (want 0x + 1.." keyw[t] " hex digits)")
	# Subscripts use the canonical hex text, not the number: awk turns
	# numbers above 2^31 into "%.6g" text when they index an array.
	ks = substr(k, 3)
	sub(/^0+/, "", ks)
	if (ks == "") ks = "0"
	if ($2 !~ "^" IDENT "$") die("bad struct name \"" $2 "\"")
	ssize = u32($3, "struct size")
	if (ssize == 0) die("struct size 0")
	if ($4 !~ "^" MEMBER "([.]" MEMBER ")*$") die("bad field name \"" $4 "\"")
	off = u32($5, "offset")
	fsz = u32($6, "size")
	if (fsz == 0) die("field " $4 " has size 0")
	if (!($7 in kind_c)) die("unknown kind \"" $7 "\"")
	if ($7 == "handles" && fsz % 4) die("field " $4 ": kind handles needs a multiple of 4 bytes")
	if ($7 == "uuid" && fsz < 16) die("field " $4 ": kind uuid needs 16 bytes or more")
	if (ksizes[$7] != "" && index(ksizes[$7], " " fsz " ") == 0)
		die("field " $4 ": kind " $7 " cannot be " fsz " bytes")
	if (off + fsz > ssize)
		die("field " $4 " (" off "+" fsz ") runs past the end of " $2 " (" ssize " bytes)")
	p = index($8, "..")
	if (p == 0) die("bad drivers \"" $8 "\" (want first..last)")
	since = ver(substr($8, 1, p - 1))
	until = ver(substr($8, p + 2))
	if (since > until) die("drivers range \"" $8 "\" runs backwards")

	L = fam_of[t] SUBSEP ks SUBSEP ssize SUBSEP $8
	if (!(L in lid)) {
		l = lid[L] = ++nl
		lfam[l] = fam_of[t]; lks[l] = ks; lkv[l] = hexval(ks); lsize[l] = ssize
		lname[l] = $2; lsince[l] = since; luntil[l] = until
		lwhere[l] = FILENAME ":" FNR " " $2 "/" ssize " (" $8 ")"
		ldrv[l] = $8
	} else {
		l = lid[L]
		if (lname[l] != $2) die("struct name " $2 " differs from " lname[l] " for the same key, size and drivers")
	}
	if ((l, $4) in fseen) die("field " $4 " given twice in " $2 "/" ssize)
	fseen[l, $4] = 1
	n = ++nf[l]
	fname[l, n] = $4; foff[l, n] = off; fsize[l, n] = fsz; fkind[l, n] = $7
	count[t]++
}

# Applies refine.tsv to every layout (see the top of this file).
function refine(    l, x, m, R, j, y, base, size, part) {
	for (l = 1; l <= nl; l++) {
		m = nf[l]
		for (x = 1; x <= m; x++) {
			R = lname[l] SUBSEP fname[l, x]
			if (!(R in rn)) continue
			where = rwhere[R] " on " lwhere[l]
			rused[R] = 1
			base = foff[l, x]; size = fsize[l, x]
			for (j = 1; j <= rn[R]; j++) {
				if (roff[R, j] + rsize[R, j] > size)
					die(rname[R, j] " runs past the end of " fname[l, x])
				y = j == 1 ? x : ++nf[l]
				fname[l, y] = rname[R, j]; foff[l, y] = base + roff[R, j]
				fsize[l, y] = rsize[R, j]; fkind[l, y] = rkind[R, j]
			}
		}
	}
	for (R in rn)
		if (!(R in rused)) {
			where = rwhere[R]
			split(R, part, SUBSEP)
			die("no layout has " part[1] "." part[2] ": a stale refinement")
		}
}

# The last part of a member path, without its index: "pciBarInfo[3].barSize" -> "barSize".
function leafname(n) {
	sub(/.*[.]/, "", n)
	sub(/[[][0-9]+[]]$/, "", n)
	return n
}

function cap(s) {
	return toupper(substr(s, 1, 1)) substr(s, 2)
}

# The names a count of array a may have (docs/LAYOUTS.md, "Kinds from
# names"), into cand[]; returns how many.  Entries of a: aCount, sCount,
# numS, numSs, numSes ... where s is a less List/Array/Table/Tbl/Info and
# any plural s; aSize for a ...List (fbInfoListSize).  Bytes of data,
# buffer: length, size.
function count_names(a, bytes,    s, s1, n) {
	n = 0
	if (bytes) {
		if (a !~ /^(data|buffer|buf)$/) return 0
		cand[++n] = "length"; cand[++n] = "size"
		cand[++n] = a "Length"; cand[++n] = a "Size"
		return n
	}
	s = a
	sub(/(List|Array|Table|Tbl|Info)$/, "", s)
	s1 = s
	if (s1 ~ /[^s]s$/) sub(/s$/, "", s1)
	cand[++n] = a "Count"; cand[++n] = s "Count"; cand[++n] = s1 "Count"
	cand[++n] = "num" cap(a); cand[++n] = "num" cap(s); cand[++n] = "num" cap(s1)
	cand[++n] = "num" cap(s1) "s"; cand[++n] = "num" cap(s1) "es"
	if (a != s) cand[++n] = a "Size"
	return n
}

# Field x of layout l as an array: its path ("a.pciBarInfo") in arr_path,
# its element index (-1: the whole array) in arr_index; false if it is
# neither an element of a flattened array nor a handles/bytes/uuid array.
function as_array(l, x,    n) {
	n = fname[l, x]
	if (match(n, /[[][0-9]+[]]/)) {
		if (index(substr(n, RSTART + RLENGTH), "[")) return 0   # nested arrays: not counted
		arr_path = substr(n, 1, RSTART - 1)
		arr_index = substr(n, RSTART + 1, RLENGTH - 2) + 0
		return 1
	}
	if (fkind[l, x] != "bytes" && fkind[l, x] != "uuid" && fkind[l, x] != "handles") return 0
	arr_path = n
	arr_index = -1
	return 1
}

# The kind rule 1 of derive_kinds for an 8-byte u named a: addr, size or u.
function u64_kind(a) {
	if (a ~ ADDR_END || a ~ ADDR_ALL) return "addr"
	if (a ~ SIZE_END) return "size"
	return "u"
}

# The field of layout l (byname[] filled) that counts array field x, in
# bytes or in entries: its name, "" if none.  as_array(l, x) first.
function count_of(l, x, bytes,    a, parent, n, i, full, y) {
	a = arr_path
	if (sub(/.*[.]/, "", a)) parent = substr(arr_path, 1, length(arr_path) - length(a))
	else parent = ""
	n = count_names(a, bytes)
	for (i = 1; i <= n; i++) {
		full = parent cand[i]
		if (!(full in byname)) continue
		y = byname[full]
		if (fkind[l, y] == "u" || fkind[l, y] == "s" || fkind[l, y] == "count") return full
	}
	return ""
}

# A whole bytes field x of layout l that an entry layout (array_elems.tsv)
# could describe: one with a count of entries beside it, and none of bytes.
function wants_elems(l, x) {
	if (fkind[l, x] != "bytes" || !as_array(l, x) || arr_index >= 0) return 0
	return count_of(l, x, 1) == "" && count_of(l, x, 0) != ""
}

# -v list=arrays: the arrays that want an entry layout, for import-elements.sh.
function list_arrays(    l, x) {
	for (l = 1; l <= nl; l++) {
		delete byname
		for (x = 1; x <= nf[l]; x++) byname[fname[l, x]] = x
		for (x = 1; x <= nf[l]; x++)
			if (wants_elems(l, x))
				printf "%s\t%s\t%d\t%d\t%d\t%s\t%s\t0x%s\n", lname[l], fname[l, x], \
					fsize[l, x], foff[l, x], lsize[l], ldrv[l], fam_label[lfam[l]], lks[l]
	}
}

# Gives each array that wants one the entry layout of array_elems.tsv that
# covers its layout's drivers range (felem[l, x]); entry layouts with the
# same members share one C array (eidx[e], from 1).  An entry layout that
# no array takes is stale: an error.
function attach_elems(    l, x, k, ids, n, i, e, j, a, body) {
	for (l = 1; l <= nl; l++) {
		delete byname
		for (x = 1; x <= nf[l]; x++) byname[fname[l, x]] = x
		for (x = 1; x <= nf[l]; x++) {
			if (!wants_elems(l, x)) continue
			k = lname[l] SUBSEP fname[l, x]
			if (!(k in eof)) continue
			n = split(eof[k], ids, " ")
			for (i = 1; i <= n; i++) {
				e = ids[i]
				if (esince[e] > lsince[l] || luntil[l] > euntil[e]) continue
				if (fsize[l, x] % esize[e]) {
					where = lwhere[l]
					die(fname[l, x] " (" fsize[l, x] " bytes) is not a whole number of its " esize[e] "-byte entries (" ewhere[e] ")")
				}
				felem[l, x] = e
				eused[e] = 1
				break
			}
		}
	}
	neb = 0
	for (e = 1; e <= ne; e++) {
		where = ewhere[e]
		if (!(e in eused))
			die("no layout of " estruct[e] " over " edrv[e] " has a counted bytes array " earr[e] ": a stale entry layout")
		# Members in offset order, no overlaps; kind rule 1 by name (a
		# scalar entry by its array's name less List/Array/... and a plural s).
		for (i = 2; i <= nem[e]; i++)
			for (j = i; j > 1 && emoff[e, j - 1] > emoff[e, j]; j--) {
				swap_member(e, j)
			}
		body = ""
		for (i = 1; i <= nem[e]; i++) {
			if (i > 1 && emoff[e, i] < emoff[e, i - 1] + emsize[e, i - 1])
				die("members " emname[e, i - 1] " and " emname[e, i] " overlap")
			if (emkind[e, i] == "u" && emsize[e, i] == 8) {
				a = emname[e, i] == "-" ? singular(leafname(earr[e])) : leafname(emname[e, i])
				emkind[e, i] = u64_kind(a)
			}
			body = body sprintf("\t{ \"%s\", %du, %du, %s, -1, -1, 0 },\n", \
					    emname[e, i] == "-" ? "" : emname[e, i], emoff[e, i], \
					    emsize[e, i], kind_c[emkind[e, i]])
		}
		body = esize[e] SUBSEP body
		if (!(body in ebody_idx)) {
			ebody_idx[body] = ++neb
			ebody_size[neb] = esize[e]; ebody_n[neb] = nem[e]
			ebody_text[neb] = substr(body, index(body, SUBSEP) + 1)
			ebody_where[neb] = estruct[e] "." earr[e] " (" edrv[e] ")"
		}
		eidx[e] = ebody_idx[body]
	}
	if (neb > 65535) die("more than 65535 entry layouts: ct_field.elem is 16 bits")
	where = ""
}

function swap_member(e, j,    t) {
	t = emname[e, j]; emname[e, j] = emname[e, j - 1]; emname[e, j - 1] = t
	t = emoff[e, j]; emoff[e, j] = emoff[e, j - 1]; emoff[e, j - 1] = t
	t = emsize[e, j]; emsize[e, j] = emsize[e, j - 1]; emsize[e, j - 1] = t
	t = emkind[e, j]; emkind[e, j] = emkind[e, j - 1]; emkind[e, j - 1] = t
}

# "addressArray" -> "address", "offsets" -> "offset", "numaOfflineAddresses"
# -> "numaOfflineAddress": what one entry is.
function singular(a) {
	sub(/(List|Array|Table|Tbl|Info)$/, "", a)
	if (a ~ /sses$/) sub(/es$/, "", a)
	else if (a ~ /[^s]s$/) sub(/s$/, "", a)
	return a
}

# Kinds the types in the TSV files do not carry, from the names (applied
# after refine.tsv; docs/LAYOUTS.md, "Kinds from names"):
#  1. an 8-byte u whose last name part ends in Addr, Address, Base, VA, PA,
#     Offset, Limit, Ptr (or is rangeLo/Hi/Begin/End, vaLo/Hi...) -> addr;
#     ending in Size, Length, SizeBytes, Align, Alignment -> size;
#  2. a u or s field named as the count of an array beside it (count_names)
#     -> count, and the array's fields get its name in fcount[]: counted in
#     entries for flattened elements, handles and arrays with an entry
#     layout (felem[]), in bytes for a whole data/buffer/buf array.
function derive_kinds(    l, x, y, full) {
	for (l = 1; l <= nl; l++) {
		delete byname
		for (x = 1; x <= nf[l]; x++) byname[fname[l, x]] = x
		for (x = 1; x <= nf[l]; x++) {
			if (fkind[l, x] != "u" || fsize[l, x] != 8) continue
			fkind[l, x] = u64_kind(leafname(fname[l, x]))
		}
		for (x = 1; x <= nf[l]; x++) {
			if (!as_array(l, x)) continue
			full = count_of(l, x, arr_index < 0 && fkind[l, x] != "handles" && !((l, x) in felem))
			if (full == "") continue
			y = byname[full]
			fkind[l, y] = "count"
			fcount[l, x] = full
			findex[l, x] = arr_index
		}
	}
}

# Sorts field numbers of layout l by offset into ford[].
function sort_fields(l,    i, j, x) {
	for (i = 1; i <= nf[l]; i++) ford[i] = i
	for (i = 2; i <= nf[l]; i++) {
		x = ford[i]
		for (j = i - 1; j >= 1 && foff[l, ford[j]] > foff[l, x]; j--)
			ford[j + 1] = ford[j]
		ford[j + 1] = x
	}
}

# Layout order: family, key, size, since; the C lookups rely on it.
function lless(a, b) {
	if (lfam[a] != lfam[b]) return lfam[a] < lfam[b]
	if (lkv[a] != lkv[b]) return lkv[a] < lkv[b]
	if (lsize[a] != lsize[b]) return lsize[a] < lsize[b]
	return lsince[a] < lsince[b]
}

END {
	where = "input"
	if (!("escape_fields" in seen_file)) die("escape_fields.tsv not given, or empty")
	if (!("uvm_fields" in seen_file)) die("uvm_fields.tsv not given, or empty")
	for (t in seen_file)
		if (!count[t]) die(t ".tsv has no rows")
	refine()
	if (list == "arrays") {
		list_arrays()
		exit 0
	}
	attach_elems()
	derive_kinds()

	for (l = 1; l <= nl; l++) {
		where = lwhere[l]
		sort_fields(l)
		lbody[l] = ""
		delete posof
		for (i = 1; i <= nf[l]; i++) posof[fname[l, ford[i]]] = i - 1
		for (i = 1; i <= nf[l]; i++) {
			x = lford[l, i] = ford[i]
			cnt = ((l, x) in fcount) ? posof[fcount[l, x]] : -1
			idx = ((l, x) in fcount) ? findex[l, x] : -1
			el = ((l, x) in felem) ? eidx[felem[l, x]] : 0
			lbody[l] = lbody[l] sprintf("\t{ \"%s\", %du, %du, %s, %d, %d, %d },\n", fname[l, x], foff[l, x], fsize[l, x], kind_c[fkind[l, x]], cnt, idx, el)
		}
		for (i = 2; i <= nf[l]; i++) {
			a = lford[l, i - 1]; b = lford[l, i]
			if (foff[l, b] < foff[l, a] + fsize[l, a])
				die("fields " fname[l, a] " (" foff[l, a] "+" fsize[l, a] ") and " \
				    fname[l, b] " (" foff[l, b] "+" fsize[l, b] ") overlap")
		}
	}

	# Families in enum order, then an insertion sort, which is linear on
	# the files' own (key, size, since) order: thousands of layouts.
	n = 0
	for (f = 0; f < NFAM; f++)
		for (l = 1; l <= nl; l++)
			if (lfam[l] == f) lord[++n] = l
	for (i = 2; i <= nl; i++) {
		x = lord[i]
		for (j = i - 1; j >= 1 && lless(x, lord[j]); j--)
			lord[j + 1] = lord[j]
		lord[j + 1] = x
	}
	# Overlapping ranges of one key and size: the same layout (from two
	# files) is merged into the first, which has the earlier since; a
	# different one is an error.
	m = nl
	nl = m ? 1 : 0
	for (i = 2; i <= m; i++) {
		a = lord[nl]; b = lord[i]
		where = lwhere[b]
		if (lfam[a] == lfam[b] && lkv[a] == lkv[b] && lsize[a] == lsize[b] && luntil[a] >= lsince[b]) {
			if (lname[a] != lname[b] || lbody[a] != lbody[b])
				die("driver range overlaps that of " lwhere[a] ": the driver version could not choose")
			if (luntil[b] > luntil[a]) luntil[a] = luntil[b]
			continue
		}
		lord[++nl] = b
	}
	where = ""

	print "/* Generated by decoders/layouts/gen-layouts.awk from the TSV files in decoders/layouts/; do not edit. */"
	print "/* Data only: decoders/layouts/layouts.c holds the code that reads it. */"
	print "#include <stddef.h>"
	print "#include \"layouts.h\""
	print ""
	printf "const char ct_layouts_tag[] = \"%s\";\n\n", tag
	# The entry layouts of counted arrays (array_elems.tsv); 0 is none.
	for (i = 1; i <= neb; i++) {
		printf "/* one entry of %s */\n", ebody_where[i]
		printf "static const struct ct_field e%d[] = {\n%s};\n", i, ebody_text[i]
	}
	print "const struct ct_elem ct_elem_tab[] = {"
	print "\t{ 0u, NULL, 0u },"
	for (i = 1; i <= neb; i++)
		printf "\t{ %du, e%d, %du },\n", ebody_size[i], i, ebody_n[i]
	print "};"
	print "const size_t ct_elem_tab_len = sizeof(ct_elem_tab) / sizeof(ct_elem_tab[0]);"
	print ""
	# Layouts with the same fields (classes that share a struct, a struct
	# that kept its fields across driver ranges) share one array.
	for (i = 1; i <= nl; i++) {
		l = lord[i]
		body = lbody[l]
		if (body in farr) {
			larr[l] = farr[body]
			continue
		}
		larr[l] = farr[body] = i
		printf "/* %s, %s 0x%s, %d bytes */\n", lname[l], fam_label[lfam[l]], lks[l], lsize[l]
		printf "static const struct ct_field f%d[] = {\n%s};\n", i, body
	}
	print ""
	print "/* Sorted by (family, req, size, since): ct_layout_find() depends on it. */"
	print "const struct ct_layout ct_layout_tab[] = {"
	for (i = 1; i <= nl; i++) {
		l = lord[i]
		printf "\t{ \"%s\", %du, f%d, %du, %s, 0x%su, %du, %du },\n", \
			lname[l], lsize[l], larr[l], nf[l], fam_c[lfam[l]], lks[l], lsince[l], luntil[l]
	}
	print "};"
	print ""
	print "const size_t ct_layout_tab_len = sizeof(ct_layout_tab) / sizeof(ct_layout_tab[0]);"
}

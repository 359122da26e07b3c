// A comment naming docs/page.md, "A heading here", which resolves, and
// docs/page.md, "No such
// heading", which does not; "hopt/xx/yy.h" names no public header.
// The retired DESIGN.md section 2 is not a file of the repository.
const char* kNotAComment = "docs/missing.md";  // but scripts/tool.py exists
/* core/gone.h in a block comment */

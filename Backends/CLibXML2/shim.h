// The parts of libxml2 the XML store uses: the streaming reader (xmlreader.h) to load a store and the
// text writer (xmlwriter.h) to save one.
#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the copy of ICU inside Swift's Foundation. The store
// never touches encoding handlers (the only structure whose fields depend on ICU), so leave ICU out.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlwriter.h>
#include <libxml/xmlerror.h>

/// Frees memory libxml2 allocated (`xmlFree`). libxml2 declares `xmlFree` as a global function-pointer variable,
/// which Swift 6 refuses to read from Swift as shared mutable state; this function reads it in C.
static inline void clibxml2_free(void *pointer) { xmlFree(pointer); }
#endif

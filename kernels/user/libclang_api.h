// libclang's C API, loaded when first needed (dlopen) rather than linked: the binary runs
// where libclang is absent (the GPU machine's bundle, a lab without libclang1-14), and only
// a student's plain-CUDA kernel on the emulator needs it, with a clear message when it is
// missing. The front end's files (through cuda_front_internal.h) define
// WS_LIBCLANG_CALLS_THROUGH_TABLE before including this; their calls then go through the
// loaded table.
#pragma once

#include <clang-c/Index.h>

#include <string>

namespace ws::user::libclang {

// Every libclang function the front end calls (add a name here when it calls another).
#define WS_LIBCLANG_FUNCTIONS(X) \
  X(clang_Cursor_getArgument) \
  X(clang_Cursor_getNumArguments) \
  X(clang_Cursor_isNull) \
  X(clang_Type_getSizeOf) \
  X(clang_createIndex) \
  X(clang_disposeDiagnostic) \
  X(clang_disposeIndex) \
  X(clang_disposeString) \
  X(clang_disposeTokens) \
  X(clang_disposeTranslationUnit) \
  X(clang_equalCursors) \
  X(clang_getArrayElementType) \
  X(clang_getArraySize) \
  X(clang_getCString) \
  X(clang_getClangVersion) \
  X(clang_getCanonicalCursor) \
  X(clang_getCanonicalType) \
  X(clang_getCursorExtent) \
  X(clang_getCursorKind) \
  X(clang_getCursorLocation) \
  X(clang_getCursorReferenced) \
  X(clang_getCursorSpelling) \
  X(clang_getCursorType) \
  X(clang_getDiagnostic) \
  X(clang_getDiagnosticLocation) \
  X(clang_getDiagnosticSeverity) \
  X(clang_getDiagnosticSpelling) \
  X(clang_getFileLocation) \
  X(clang_getFileName) \
  X(clang_getNumDiagnostics) \
  X(clang_getPointeeType) \
  X(clang_getRangeEnd) \
  X(clang_getRangeStart) \
  X(clang_getTokenExtent) \
  X(clang_getTokenSpelling) \
  X(clang_getTranslationUnitCursor) \
  X(clang_getTypeSpelling) \
  X(clang_isConstQualifiedType) \
  X(clang_isCursorDefinition) \
  X(clang_parseTranslationUnit2) \
  X(clang_saveTranslationUnit) \
  X(clang_tokenize) \
  X(clang_visitChildren)

struct Api {
#define WS_LIBCLANG_MEMBER(f) decltype(&::f) f = nullptr;
  WS_LIBCLANG_FUNCTIONS(WS_LIBCLANG_MEMBER)
#undef WS_LIBCLANG_MEMBER
};

// The loaded library, or nullptr with `why` saying which names were tried.
// @post the result is nullptr or has every member non-null; the same pointer on every call.
const Api* load(std::string* why = nullptr);

// What the calls below go through once load() succeeded (set by load()).
extern const Api* g_api;

}  // namespace ws::user::libclang

#ifdef WS_LIBCLANG_CALLS_THROUGH_TABLE
#define WS_LIBCLANG_ROUTE(f) ws::user::libclang::g_api->f
#define clang_Cursor_getArgument WS_LIBCLANG_ROUTE(clang_Cursor_getArgument)
#define clang_Cursor_getNumArguments WS_LIBCLANG_ROUTE(clang_Cursor_getNumArguments)
#define clang_Cursor_isNull WS_LIBCLANG_ROUTE(clang_Cursor_isNull)
#define clang_Type_getSizeOf WS_LIBCLANG_ROUTE(clang_Type_getSizeOf)
#define clang_createIndex WS_LIBCLANG_ROUTE(clang_createIndex)
#define clang_disposeDiagnostic WS_LIBCLANG_ROUTE(clang_disposeDiagnostic)
#define clang_disposeIndex WS_LIBCLANG_ROUTE(clang_disposeIndex)
#define clang_disposeString WS_LIBCLANG_ROUTE(clang_disposeString)
#define clang_disposeTokens WS_LIBCLANG_ROUTE(clang_disposeTokens)
#define clang_disposeTranslationUnit WS_LIBCLANG_ROUTE(clang_disposeTranslationUnit)
#define clang_equalCursors WS_LIBCLANG_ROUTE(clang_equalCursors)
#define clang_getArrayElementType WS_LIBCLANG_ROUTE(clang_getArrayElementType)
#define clang_getArraySize WS_LIBCLANG_ROUTE(clang_getArraySize)
#define clang_getCString WS_LIBCLANG_ROUTE(clang_getCString)
#define clang_getClangVersion WS_LIBCLANG_ROUTE(clang_getClangVersion)
#define clang_getCanonicalCursor WS_LIBCLANG_ROUTE(clang_getCanonicalCursor)
#define clang_getCanonicalType WS_LIBCLANG_ROUTE(clang_getCanonicalType)
#define clang_getCursorExtent WS_LIBCLANG_ROUTE(clang_getCursorExtent)
#define clang_getCursorKind WS_LIBCLANG_ROUTE(clang_getCursorKind)
#define clang_getCursorLocation WS_LIBCLANG_ROUTE(clang_getCursorLocation)
#define clang_getCursorReferenced WS_LIBCLANG_ROUTE(clang_getCursorReferenced)
#define clang_getCursorSpelling WS_LIBCLANG_ROUTE(clang_getCursorSpelling)
#define clang_getCursorType WS_LIBCLANG_ROUTE(clang_getCursorType)
#define clang_getDiagnostic WS_LIBCLANG_ROUTE(clang_getDiagnostic)
#define clang_getDiagnosticLocation WS_LIBCLANG_ROUTE(clang_getDiagnosticLocation)
#define clang_getDiagnosticSeverity WS_LIBCLANG_ROUTE(clang_getDiagnosticSeverity)
#define clang_getDiagnosticSpelling WS_LIBCLANG_ROUTE(clang_getDiagnosticSpelling)
#define clang_getFileLocation WS_LIBCLANG_ROUTE(clang_getFileLocation)
#define clang_getFileName WS_LIBCLANG_ROUTE(clang_getFileName)
#define clang_getNumDiagnostics WS_LIBCLANG_ROUTE(clang_getNumDiagnostics)
#define clang_getPointeeType WS_LIBCLANG_ROUTE(clang_getPointeeType)
#define clang_getRangeEnd WS_LIBCLANG_ROUTE(clang_getRangeEnd)
#define clang_getRangeStart WS_LIBCLANG_ROUTE(clang_getRangeStart)
#define clang_getTokenExtent WS_LIBCLANG_ROUTE(clang_getTokenExtent)
#define clang_getTokenSpelling WS_LIBCLANG_ROUTE(clang_getTokenSpelling)
#define clang_getTranslationUnitCursor WS_LIBCLANG_ROUTE(clang_getTranslationUnitCursor)
#define clang_getTypeSpelling WS_LIBCLANG_ROUTE(clang_getTypeSpelling)
#define clang_isConstQualifiedType WS_LIBCLANG_ROUTE(clang_isConstQualifiedType)
#define clang_isCursorDefinition WS_LIBCLANG_ROUTE(clang_isCursorDefinition)
#define clang_parseTranslationUnit2 WS_LIBCLANG_ROUTE(clang_parseTranslationUnit2)
#define clang_saveTranslationUnit WS_LIBCLANG_ROUTE(clang_saveTranslationUnit)
#define clang_tokenize WS_LIBCLANG_ROUTE(clang_tokenize)
#define clang_visitChildren WS_LIBCLANG_ROUTE(clang_visitChildren)
#endif

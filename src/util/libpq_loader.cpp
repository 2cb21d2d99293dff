// File: libpq_loader.cpp
// The PQ functions the tree calls, defined here and forwarded to libpq.so.5, which is opened on first use.
// Linked normally, libpq brings Kerberos, LDAP, SASL, GnuTLS and p11-kit: 20 of the binary's 40 shared
// libraries, whose loading and constructors took ~7 ms of every start (`icsbridge --version` 12 ms against
// 5 ms without them), paid by every one-shot command and cron job whether or not it uses a database.
// Each definition has the signature libpq-fe.h declares, so the compiler checks them against the header.
#include "util/libpq_loader.hpp"

#include <dlfcn.h>
#include <libpq-fe.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace icsbridge {

namespace {

#define ICSBRIDGE_PQ_FUNCTIONS(X)                                                                            \
    X(PQclear)                                                                                               \
    X(PQconnectdbParams)                                                                                     \
    X(PQconninfoFree)                                                                                        \
    X(PQconninfoParse)                                                                                       \
    X(PQconsumeInput)                                                                                        \
    X(PQerrorMessage)                                                                                        \
    X(PQfinish)                                                                                              \
    X(PQflush)                                                                                               \
    X(PQfreemem)                                                                                             \
    X(PQgetResult)                                                                                           \
    X(PQgetisnull)                                                                                           \
    X(PQgetlength)                                                                                           \
    X(PQgetvalue)                                                                                            \
    X(PQisBusy)                                                                                              \
    X(PQnotifies)                                                                                            \
    X(PQntuples)                                                                                             \
    X(PQreset)                                                                                               \
    X(PQresultErrorMessage)                                                                                  \
    X(PQresultStatus)                                                                                        \
    X(PQsendQuery)                                                                                           \
    X(PQsendQueryParams)                                                                                     \
    X(PQsetNoticeProcessor)                                                                                  \
    X(PQsetnonblocking)                                                                                      \
    X(PQsocket)                                                                                              \
    X(PQstatus)                                                                                              \
    X(PQtransactionStatus)

struct Api {
// A declaration's name cannot be parenthesised.
// NOLINTNEXTLINE(bugprone-macro-parentheses)
#define ICSBRIDGE_PQ_POINTER(name) decltype(&::name) name = nullptr;
    ICSBRIDGE_PQ_FUNCTIONS(ICSBRIDGE_PQ_POINTER)
#undef ICSBRIDGE_PQ_POINTER
    std::string error; ///< empty when every function was found
};

Api load() {
    Api api;
    // RTLD_LOCAL: its symbols must not interpose on ours, which forward to it.
    void* lib = ::dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        char const* why = ::dlerror();
        api.error = "cluster mode needs the PostgreSQL client library, which cannot be loaded (" +
                    std::string(why ? why : "libpq.so.5 not found") + "); on Debian: apt install libpq5";
        return api;
    }
    // Never closed: the process may use it until it ends.
#define ICSBRIDGE_PQ_LOOKUP(name)                                                                            \
    api.name = reinterpret_cast<decltype(&::name)>(::dlsym(lib, #name));                                     \
    if (!api.name && api.error.empty())                                                                      \
        api.error = "the PostgreSQL client library libpq.so.5 has no " #name " (too old a libpq5?)";
    ICSBRIDGE_PQ_FUNCTIONS(ICSBRIDGE_PQ_LOOKUP)
#undef ICSBRIDGE_PQ_LOOKUP
    return api;
}

// Loaded once, then only read: the one process-wide table, as the dynamic loader's own would be.
Api const& api() {
    static Api const loaded = load();
    return loaded;
}

Api const& loaded_api() {
    Api const& a = api();
    if (!a.error.empty()) {
        // A bug: every way into cluster code asks libpq_loaded() first and reports its error.
        std::fprintf(stderr, "icsbridge: a PQ function was called without libpq: %s\n", a.error.c_str());
        std::abort();
    }
    return a;
}

} // namespace

Result<void> libpq_loaded() {
    if (auto const& a = api(); !a.error.empty())
        return fail(errc::io_error, a.error);
    return {};
}

} // namespace icsbridge

using icsbridge::loaded_api;

extern "C" {

void PQclear(PGresult* res) {
    loaded_api().PQclear(res);
}
PGconn* PQconnectdbParams(char const* const* keywords, char const* const* values, int expand_dbname) {
    return loaded_api().PQconnectdbParams(keywords, values, expand_dbname);
}
void PQconninfoFree(PQconninfoOption* options) {
    loaded_api().PQconninfoFree(options);
}
PQconninfoOption* PQconninfoParse(char const* conninfo, char** errmsg) {
    return loaded_api().PQconninfoParse(conninfo, errmsg);
}
int PQconsumeInput(PGconn* conn) {
    return loaded_api().PQconsumeInput(conn);
}
char* PQerrorMessage(PGconn const* conn) {
    return loaded_api().PQerrorMessage(conn);
}
void PQfinish(PGconn* conn) {
    loaded_api().PQfinish(conn);
}
int PQflush(PGconn* conn) {
    return loaded_api().PQflush(conn);
}
void PQfreemem(void* ptr) {
    loaded_api().PQfreemem(ptr);
}
PGresult* PQgetResult(PGconn* conn) {
    return loaded_api().PQgetResult(conn);
}
int PQgetisnull(PGresult const* res, int tup_num, int field_num) {
    return loaded_api().PQgetisnull(res, tup_num, field_num);
}
int PQgetlength(PGresult const* res, int tup_num, int field_num) {
    return loaded_api().PQgetlength(res, tup_num, field_num);
}
char* PQgetvalue(PGresult const* res, int tup_num, int field_num) {
    return loaded_api().PQgetvalue(res, tup_num, field_num);
}
int PQisBusy(PGconn* conn) {
    return loaded_api().PQisBusy(conn);
}
PGnotify* PQnotifies(PGconn* conn) {
    return loaded_api().PQnotifies(conn);
}
int PQntuples(PGresult const* res) {
    return loaded_api().PQntuples(res);
}
void PQreset(PGconn* conn) {
    loaded_api().PQreset(conn);
}
char* PQresultErrorMessage(PGresult const* res) {
    return loaded_api().PQresultErrorMessage(res);
}
ExecStatusType PQresultStatus(PGresult const* res) {
    return loaded_api().PQresultStatus(res);
}
int PQsendQuery(PGconn* conn, char const* query) {
    return loaded_api().PQsendQuery(conn, query);
}
int PQsendQueryParams(
    PGconn* conn,
    char const* command,
    int nParams,
    Oid const* paramTypes,
    char const* const* paramValues,
    int const* paramLengths,
    int const* paramFormats,
    int resultFormat
) {
    return loaded_api().PQsendQueryParams(
        conn,
        command,
        nParams,
        paramTypes,
        paramValues,
        paramLengths,
        paramFormats,
        resultFormat
    );
}
PQnoticeProcessor PQsetNoticeProcessor(PGconn* conn, PQnoticeProcessor proc, void* arg) {
    return loaded_api().PQsetNoticeProcessor(conn, proc, arg);
}
int PQsetnonblocking(PGconn* conn, int arg) {
    return loaded_api().PQsetnonblocking(conn, arg);
}
int PQsocket(PGconn const* conn) {
    return loaded_api().PQsocket(conn);
}
ConnStatusType PQstatus(PGconn const* conn) {
    return loaded_api().PQstatus(conn);
}
PGTransactionStatusType PQtransactionStatus(PGconn const* conn) {
    return loaded_api().PQtransactionStatus(conn);
}

} // extern "C"

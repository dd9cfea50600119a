// libpq, opened on the first call into it rather than linked. Linked, libpq brings two dozen
// libraries (OpenSSL, GnuTLS, Kerberos, LDAP, SASL; several bound in full at load) that the
// dynamic loader maps and relocates at every start of every program linking the engine, though
// only a project on a PostgreSQL server uses them (see benchmarks/startup). The libpq functions
// the PostgreSQL backend calls are defined here, hidden from every other library (libpq's own
// calls between its functions keep reaching libpq), and each forwards to libpq's definition,
// looked up once. A libpq function the backend starts to call needs its forwarder here: the
// program's link names it as an undefined reference of the engine otherwise.
//
// Where libpq cannot be loaded, the first call throws Error naming the library and why.
#include <dlfcn.h>
#include <stdio.h>

#include <postgres_ext.h>

#pragma GCC visibility push(hidden)
#include <libpq-fe.h>
#pragma GCC visibility pop

#include <mutex>
#include <string>

#include "util/error.h"

namespace {

/// libpq's handle; throws where neither its run-time name nor the path found at build time opens.
void* libpq() {
    static void* handle = nullptr;
    static std::string failure;
    static std::once_flag once;
    std::call_once(once, [] {
        for (const char* name : {LINKSCOPE_LIBPQ_SONAME, LINKSCOPE_LIBPQ_PATH}) {
            handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
            if (handle) return;
            const char* why = dlerror();
            if (failure.empty()) failure = why ? why : name;
        }
    });
    if (!handle)
        throw linkscope::Error("a PostgreSQL project needs the PostgreSQL client library " +
                               std::string(LINKSCOPE_LIBPQ_SONAME) + ", which cannot be loaded: " + failure);
    return handle;
}

/// libpq's definition of `name`, of the type of our forwarder `Function`.
template <typename Function>
Function real(const char* name) {
    void* symbol = dlsym(libpq(), name);
    if (!symbol) throw linkscope::Error(std::string("the PostgreSQL client library has no ") + name);
    return reinterpret_cast<Function>(symbol);
}

}  // namespace

// Each forwarder looks its target up once, on its first call.
#define LINKSCOPE_LIBPQ(name) static const auto target = real<decltype(&::name)>(#name)

extern "C" {

PGconn* PQconnectdb(const char* conninfo) {
    LINKSCOPE_LIBPQ(PQconnectdb);
    return target(conninfo);
}

void PQfinish(PGconn* conn) {
    LINKSCOPE_LIBPQ(PQfinish);
    target(conn);
}

void PQreset(PGconn* conn) {
    LINKSCOPE_LIBPQ(PQreset);
    target(conn);
}

ConnStatusType PQstatus(const PGconn* conn) {
    LINKSCOPE_LIBPQ(PQstatus);
    return target(conn);
}

char* PQerrorMessage(const PGconn* conn) {
    LINKSCOPE_LIBPQ(PQerrorMessage);
    return target(conn);
}

char* PQuser(const PGconn* conn) {
    LINKSCOPE_LIBPQ(PQuser);
    return target(conn);
}

int PQsocket(const PGconn* conn) {
    LINKSCOPE_LIBPQ(PQsocket);
    return target(conn);
}

int PQsslInUse(PGconn* conn) {
    LINKSCOPE_LIBPQ(PQsslInUse);
    return target(conn);
}

int PQconsumeInput(PGconn* conn) {
    LINKSCOPE_LIBPQ(PQconsumeInput);
    return target(conn);
}

PGnotify* PQnotifies(PGconn* conn) {
    LINKSCOPE_LIBPQ(PQnotifies);
    return target(conn);
}

PQconninfoOption* PQconninfoParse(const char* conninfo, char** errmsg) {
    LINKSCOPE_LIBPQ(PQconninfoParse);
    return target(conninfo, errmsg);
}

void PQconninfoFree(PQconninfoOption* connOptions) {
    LINKSCOPE_LIBPQ(PQconninfoFree);
    target(connOptions);
}

void PQfreemem(void* ptr) {
    LINKSCOPE_LIBPQ(PQfreemem);
    target(ptr);
}

PGresult* PQexec(PGconn* conn, const char* query) {
    LINKSCOPE_LIBPQ(PQexec);
    return target(conn, query);
}

PGresult* PQexecParams(PGconn* conn, const char* command, int nParams, const Oid* paramTypes,
                       const char* const* paramValues, const int* paramLengths, const int* paramFormats,
                       int resultFormat) {
    LINKSCOPE_LIBPQ(PQexecParams);
    return target(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}

void PQclear(PGresult* res) {
    LINKSCOPE_LIBPQ(PQclear);
    target(res);
}

ExecStatusType PQresultStatus(const PGresult* res) {
    LINKSCOPE_LIBPQ(PQresultStatus);
    return target(res);
}

char* PQresultErrorMessage(const PGresult* res) {
    LINKSCOPE_LIBPQ(PQresultErrorMessage);
    return target(res);
}

char* PQresultErrorField(const PGresult* res, int fieldcode) {
    LINKSCOPE_LIBPQ(PQresultErrorField);
    return target(res, fieldcode);
}

int PQntuples(const PGresult* res) {
    LINKSCOPE_LIBPQ(PQntuples);
    return target(res);
}

char* PQcmdTuples(PGresult* res) {
    LINKSCOPE_LIBPQ(PQcmdTuples);
    return target(res);
}

char* PQgetvalue(const PGresult* res, int tup_num, int field_num) {
    LINKSCOPE_LIBPQ(PQgetvalue);
    return target(res, tup_num, field_num);
}

int PQgetlength(const PGresult* res, int tup_num, int field_num) {
    LINKSCOPE_LIBPQ(PQgetlength);
    return target(res, tup_num, field_num);
}

int PQgetisnull(const PGresult* res, int tup_num, int field_num) {
    LINKSCOPE_LIBPQ(PQgetisnull);
    return target(res, tup_num, field_num);
}

unsigned char* PQunescapeBytea(const unsigned char* strtext, size_t* retbuflen) {
    LINKSCOPE_LIBPQ(PQunescapeBytea);
    return target(strtext, retbuflen);
}

}  // extern "C"

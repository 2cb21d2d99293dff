// File: postgres_server.cpp
// PostgresServer: a throwaway PostgreSQL cluster on a Unix socket, owned by the test that started it.
#include "support/postgres_server.hpp"

#include <fcntl.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace icsbridge::test {

namespace {

constexpr char const* pg_bin = "/usr/lib/postgresql/15/bin/";

/** argv, run as `postgres` through setpriv when we are root (PostgreSQL refuses to run as root). */
std::vector<std::string> as_db_user(std::vector<std::string> argv) {
    if (::geteuid() != 0)
        return argv;
    std::vector<std::string> out =
        {"/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"};
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

/** Starts argv with stdout and stderr to `log`; the child's pid. setpriv execs, so it is the server's. */
pid_t spawn(std::vector<std::string> const& argv, std::string const& log) {
    pid_t pid = ::fork();
    if (pid < 0)
        throw std::runtime_error("fork failed");
    if (pid == 0) {
        int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            ::dup2(fd, 1);
            ::dup2(fd, 2);
        }
        std::vector<char*> args;
        for (auto const& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    return pid;
}

int run(std::vector<std::string> const& argv, std::string const& log) {
    pid_t pid = spawn(argv, log);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

PostgresServer::PostgresServer() {
    std::string templ = (std::filesystem::temp_directory_path() / "icsbridge-pg-XXXXXX").string();
    if (!::mkdtemp(templ.data()))
        throw std::runtime_error("mkdtemp failed");
    dir_ = templ;
    // The server runs as `postgres`: it must own the directory its data and socket live in.
    if (::geteuid() == 0) {
        passwd const* pw = ::getpwnam("postgres");
        if (!pw || ::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
            throw std::runtime_error("no postgres user to run the test database as (install postgresql-15)");
    }
    auto const log = dir_ + "/server.log";
    if (run(as_db_user(
                {std::string(pg_bin) + "initdb", "-D", dir_ + "/data", "-A", "trust", "-U", "postgres", "-N"}
            ),
            log) != 0)
        throw std::runtime_error("initdb failed: see " + log);
    // Unix socket only (no port to collide with), and no durability: a test database lives for seconds.
    pid_ = spawn(
        as_db_user(
            {std::string(pg_bin) + "postgres",
             "-D",
             dir_ + "/data",
             "-k",
             dir_,
             "-c",
             "listen_addresses=",
             "-c",
             "fsync=off",
             "-c",
             "synchronous_commit=off",
             "-c",
             "full_page_writes=off"}
        ),
        log
    );
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (PQping(url().c_str()) != PQPING_OK) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("postgres exited at start: see " + log);
        }
        if (std::chrono::steady_clock::now() > deadline)
            throw std::runtime_error("postgres did not accept connections within 30 s: see " + log);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

PostgresServer::~PostgresServer() {
    if (pid_ > 0) {
        // SIGINT is PostgreSQL's fast shutdown: clients are disconnected, nothing waits for them.
        ::kill(pid_, SIGINT);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

std::string PostgresServer::url(std::string const& db) const {
    return "postgresql:///" + db + "?host=" + dir_ + "&user=postgres";
}

std::string PostgresServer::fresh_database(std::string const& name) {
    std::unique_ptr<PGconn, decltype(&PQfinish)> c(PQconnectdb(url().c_str()), &PQfinish);
    if (PQstatus(c.get()) != CONNECTION_OK)
        throw std::runtime_error(
            std::string("cannot connect to the test database: ") + PQerrorMessage(c.get())
        );
    // Names come from the tests themselves: plain identifiers, quoted anyway.
    for (auto const* sql : {"DROP DATABASE IF EXISTS \"", "CREATE DATABASE \""}) {
        std::string const stmt = std::string(sql) + name + "\"";
        std::unique_ptr<PGresult, decltype(&PQclear)> r(PQexec(c.get(), stmt.c_str()), &PQclear);
        if (PQresultStatus(r.get()) != PGRES_COMMAND_OK)
            throw std::runtime_error("cannot create test database " + name + ": " + PQerrorMessage(c.get()));
    }
    return url(name);
}

PostgresServer& shared_postgres() {
    // Started on first use, stopped by the static destructor at exit: one initdb per test process.
    static PostgresServer server;
    return server;
}

} // namespace icsbridge::test

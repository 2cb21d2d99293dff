// File: args_test.cpp
// The command-line parser: commands, flags in both spellings, and every usage mistake.
#include "cli/args.hpp"

#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace icsbridge;
using namespace icsbridge::cli;

namespace args_test {

Result<Args> parse(std::vector<std::string_view> words) {
    return parse_args(words);
}

/** The usage message of a failed parse; fails the test if the parse succeeded. */
std::string mistake(std::vector<std::string_view> words) {
    auto r = parse_args(words);
    BOOST_TEST_REQUIRE(!r.has_value());
    BOOST_TEST((r.error().code == errc::usage));
    return r.error().message;
}

} // namespace args_test

BOOST_AUTO_TEST_SUITE(args_test)

BOOST_AUTO_TEST_CASE(export_takes_both_flag_spellings) {
    auto r = parse({"export", "--config", "a.toml", "--feed=my-events", "--output", "out.ics"});
    BOOST_TEST_REQUIRE(r.has_value());
    BOOST_TEST((r->command == Command::export_feed));
    BOOST_TEST(r->config == "a.toml");
    BOOST_TEST(r->feed == "my-events");
    BOOST_TEST(r->output == "out.ics");
    BOOST_TEST(!r->help);
}

BOOST_AUTO_TEST_CASE(each_command_parses_with_its_required_flags) {
    BOOST_TEST((parse({"serve", "--config", "c"})->command == Command::serve));
    BOOST_TEST((parse({"check", "--config=c"})->command == Command::check));
    auto cats = parse({"categories", "--source", "eb", "--config", "c"});
    BOOST_TEST_REQUIRE(cats.has_value());
    BOOST_TEST((cats->command == Command::categories));
    BOOST_TEST(cats->source == "eb");
    BOOST_TEST((parse({"tags", "--config", "c", "--source", "jobs"})->command == Command::tags));
}

BOOST_AUTO_TEST_CASE(help_and_version) {
    BOOST_TEST(parse({"--version"})->version);
    BOOST_TEST(parse({"--help"})->help);
    BOOST_TEST(parse({"-h"})->help);
    // A command's --help wins over missing or wrong flags: the user is asking how to call it.
    auto h = parse({"export", "--bogus", "--help"});
    BOOST_TEST_REQUIRE(h.has_value());
    BOOST_TEST(h->help);
    BOOST_TEST((h->command == Command::export_feed));
}

BOOST_AUTO_TEST_CASE(usage_mistakes_are_explained) {
    BOOST_TEST(mistake({}) == "no command given");
    BOOST_TEST(mistake({"exprot"}) == "unknown command 'exprot'; did you mean 'export'?");
    BOOST_TEST(mistake({"frobnicate"}) == "unknown command 'frobnicate'");
    BOOST_TEST(mistake({"--verbose"}) == "unknown option '--verbose'");
    BOOST_TEST(mistake({"export", "--config", "c"}) == "export: missing --feed NAME");
    BOOST_TEST(mistake({"check"}) == "check: missing --config FILE");
    BOOST_TEST(mistake({"check", "--config"}) == "check: --config needs a value (--config FILE)");
    BOOST_TEST(mistake({"check", "--config="}) == "check: --config needs a non-empty value");
    BOOST_TEST(mistake({"check", "--config", "a", "--config", "b"}) == "check: --config given twice");
    BOOST_TEST(mistake({"check", "--config", "a", "extra"}) == "check: unexpected argument 'extra'");
    BOOST_TEST(
        mistake({"check", "--confg", "a"}) == "check: unknown option '--confg'; did you mean '--config'?"
    );
    // A flag of another command is refused, not silently ignored.
    BOOST_TEST(mistake({"check", "--config", "a", "--feed", "x"}) == "check: unknown option '--feed'");
    BOOST_TEST(mistake({"tags", "--config", "a"}) == "tags: missing --source NAME");
}

BOOST_AUTO_TEST_CASE(connect_takes_its_target_without_a_flag_and_a_timeout_in_seconds) {
    auto r = parse({"connect", "--config", "c.toml", "work"});
    BOOST_TEST_REQUIRE(r.has_value(), (r ? "" : r.error().message));
    BOOST_TEST((r->command == Command::connect));
    BOOST_TEST(r->target == "work");
    BOOST_TEST(r->timeout.count() == 600);
    auto t = parse({"connect", "office", "--timeout=30", "--config=c.toml"});
    BOOST_TEST_REQUIRE(t.has_value(), (t ? "" : t.error().message));
    BOOST_TEST(t->target == "office");
    BOOST_TEST(t->timeout.count() == 30);
    BOOST_TEST(mistake({"connect", "--config", "c"}) == "connect: missing TARGET");
    BOOST_TEST(mistake({"connect", "--config", "c", "a", "b"}) == "connect: unexpected argument 'b'");
    for (std::string_view bad : {"0", "abc", "86401", "-5", "1.5", "999999999999"})
        BOOST_TEST(
            mistake({"connect", "--config", "c", "a", "--timeout", bad}) ==
                "connect: --timeout takes a whole number of seconds from 1 to 86400, not '" +
                    std::string(bad) + "'",
            bad
        );
    // Other commands still take no argument without a flag.
    BOOST_TEST(mistake({"push", "--config", "c", "work"}) == "push: unexpected argument 'work'");
    BOOST_TEST(mistake({"push", "--config", "c", "--timeout", "5"}) == "push: unknown option '--timeout'");
    BOOST_TEST(usage(Command::connect).find("--timeout SECONDS") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(usage_texts_name_every_flag_of_their_command) {
    std::string const top = usage(Command::none);
    for (char const* cmd : {"serve", "export", "check", "categories", "tags", "--version", "--help"})
        BOOST_TEST(top.find(cmd) != std::string::npos, cmd);
    std::string const exp = usage(Command::export_feed);
    for (char const* flag : {"--config FILE", "--feed NAME", "--output PATH", "stdout", "atomically"})
        BOOST_TEST(exp.find(flag) != std::string::npos, flag);
    BOOST_TEST(usage(Command::tags).find("--source NAME") != std::string::npos);
    BOOST_TEST(usage_hint(Command::check) == "Try 'icsbridge check --help'.");
    BOOST_TEST((command_from_name("export") == Command::export_feed));
    BOOST_TEST((command_from_name("nope") == Command::none));
}

BOOST_AUTO_TEST_SUITE_END()

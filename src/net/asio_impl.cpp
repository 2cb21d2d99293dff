// File: asio_impl.cpp
// The one translation unit that compiles Asio, Beast and Asio's SSL support (separate compilation),
// so the other network files stay quick to build.
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>

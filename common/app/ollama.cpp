#include "llmfs/app/ollama.hpp"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "llmfs/app/cli.hpp"

namespace llmfs {

namespace {

// A socket closed when it goes out of scope.
struct Socket {
    int fd = -1;
    Socket() = default;
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    Socket(Socket&& other) noexcept : fd(other.fd) { other.fd = -1; }
    ~Socket() {
        if (fd >= 0) ::close(fd);
    }
};

// Waits until fd is readable (POLLIN) or writable (POLLOUT); false on timeout.
bool wait_for(int fd, short events, int timeout_s) {
    pollfd p{fd, events, 0};
    int r;
    do r = ::poll(&p, 1, timeout_s * 1000);
    while (r < 0 && errno == EINTR);
    return r > 0;
}

Socket connect_to(const HttpUrl& url, int timeout_s, const std::string& what) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(url.port);
    if (const int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0)
        throw ServerUnreachable(fmt::format("{}: cannot resolve {}: {}", what, url.host, ::gai_strerror(rc)));
    std::string last_error = "no address";
    for (addrinfo* a = found; a; a = a->ai_next) {
        Socket s;
        s.fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (s.fd < 0) {
            last_error = std::strerror(errno);
            continue;
        }
        if (::connect(s.fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
            last_error = std::strerror(errno);
            continue;
        }
        if (!wait_for(s.fd, POLLOUT, timeout_s)) {
            last_error = "timed out";
            continue;
        }
        int error = 0;
        socklen_t len = sizeof error;
        ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &error, &len);
        if (error != 0) {
            last_error = std::strerror(error);
            continue;
        }
        ::freeaddrinfo(found);
        return s;
    }
    ::freeaddrinfo(found);
    throw ServerUnreachable(fmt::format("{}: no server answers at {}:{} ({})", what, url.host, url.port, last_error));
}

void send_all(int fd, const std::string& data, int timeout_s, const std::string& what) {
    for (std::size_t sent = 0; sent < data.size();) {
        if (!wait_for(fd, POLLOUT, timeout_s)) throw std::runtime_error(what + ": timed out sending the request");
        const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            throw std::runtime_error(fmt::format("{}: cannot send the request: {}", what, std::strerror(errno)));
        }
        sent += static_cast<std::size_t>(n);
    }
}

std::string receive_all(int fd, int timeout_s, const std::string& what) {
    std::string data;
    char buffer[16384];
    for (;;) {
        if (!wait_for(fd, POLLIN, timeout_s)) throw std::runtime_error(what + ": timed out waiting for the reply");
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            throw std::runtime_error(fmt::format("{}: cannot read the reply: {}", what, std::strerror(errno)));
        }
        if (n == 0) return data;
        data.append(buffer, static_cast<std::size_t>(n));
        if (data.size() > (std::size_t{256} << 20)) throw std::runtime_error(what + ": a reply of more than 256 MiB");
    }
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The body of a chunked transfer: hex size line, data, CRLF, ... until a 0 size.
std::string dechunk(const std::string& body, const std::string& what) {
    std::string out;
    std::size_t at = 0;
    for (;;) {
        const std::size_t eol = body.find("\r\n", at);
        if (eol == std::string::npos) throw std::runtime_error(what + ": a chunked reply cut short");
        std::size_t size = 0;
        std::size_t i = at;
        for (; i < eol && std::isxdigit(static_cast<unsigned char>(body[i])); ++i) {
            const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(body[i])));
            size = size * 16 + static_cast<std::size_t>(c <= '9' ? c - '0' : c - 'a' + 10);
            if (size > body.size()) throw std::runtime_error(what + ": a chunk larger than the reply");
        }
        if (i == at) throw std::runtime_error(what + ": a chunked reply without a chunk size");
        if (size == 0) return out;
        if (eol + 2 + size > body.size()) throw std::runtime_error(what + ": a chunked reply cut short");
        out.append(body, eol + 2, size);
        at = eol + 2 + size + 2;
    }
}

}  // namespace

HttpUrl parse_http_url(const std::string& url) {
    const std::string scheme = "http://";
    if (url.compare(0, scheme.size(), scheme) != 0)
        throw std::invalid_argument("not an http:// URL: " + llmfs::quoted(url) + " (https is not supported)");
    const std::string rest = url.substr(scheme.size());
    const std::size_t slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    HttpUrl u;
    u.path = slash == std::string::npos ? "/" : rest.substr(slash);
    const std::size_t colon = authority.rfind(':');
    u.host = colon == std::string::npos ? authority : authority.substr(0, colon);
    if (colon != std::string::npos) {
        const std::string port = authority.substr(colon + 1);
        if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 ||
            std::stoi(port) > 65535)
            throw std::invalid_argument("a bad port in the URL " + llmfs::quoted(url));
        u.port = std::stoi(port);
    }
    if (u.host.empty()) throw std::invalid_argument("no host in the URL " + llmfs::quoted(url));
    return u;
}

void check_server(const std::string& url, int timeout_s) { connect_to(parse_http_url(url), timeout_s, url); }

std::string http_post_json(const std::string& url, const std::string& body, int timeout_s) {
    const HttpUrl u = parse_http_url(url);
    const std::string what = "POST " + url;
    Socket s = connect_to(u, timeout_s, what);
    const std::string request = fmt::format(
        "POST {} HTTP/1.1\r\nHost: {}:{}\r\nUser-Agent: llmfs\r\nAccept: */*\r\nContent-Type: application/json\r\n"
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        u.path, u.host, u.port, body.size());
    send_all(s.fd, request + body, timeout_s, what);
    const std::string reply = receive_all(s.fd, timeout_s, what);
    const std::size_t head_end = reply.find("\r\n\r\n");
    if (head_end == std::string::npos) throw std::runtime_error(what + ": not an HTTP reply");
    const std::string head = reply.substr(0, head_end);
    std::string content = reply.substr(head_end + 4);
    const std::string status_line = head.substr(0, head.find("\r\n"));
    if (status_line.compare(0, 5, "HTTP/") != 0 || status_line.size() < 12)
        throw std::runtime_error(what + ": not an HTTP reply: " + llmfs::quoted(status_line));
    const std::string code = status_line.substr(status_line.find(' ') + 1, 3);
    if (code[0] != '2') throw std::runtime_error(fmt::format("{}: {}: {}", what, status_line, llmfs::quoted(content, 200)));
    if (lower(head).find("\r\ntransfer-encoding: chunked") != std::string::npos) content = dechunk(content, what);
    return content;
}

std::string ollama_chat_request(const std::string& prompt, const std::string& model) {
    nlohmann::ordered_json data;
    data["model"] = model;
    data["messages"] = nlohmann::ordered_json::array({{{"role", "user"}, {"content", prompt}}});
    data["options"] = {{"seed", 123}, {"temperature", 0}, {"num_ctx", 2048}};  // required for deterministic responses
    return data.dump();
}

std::string ollama_chat_content(const std::string& reply) {
    std::string response_data;
    std::size_t start = 0;
    while (start < reply.size()) {
        std::size_t end = reply.find('\n', start);
        if (end == std::string::npos) end = reply.size();
        std::string line = reply.substr(start, end - start);
        start = end + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        nlohmann::json response_json;
        try {
            response_json = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception&) {
            throw std::runtime_error("the server's reply has a line that is not JSON: " + llmfs::quoted(line));
        }
        const auto message = response_json.find("message");
        if (message == response_json.end() || !message->is_object()) continue;
        const auto content = message->find("content");
        if (content != message->end() && content->is_string()) response_data += content->get<std::string>();
    }
    return response_data;
}

std::string query_model(const std::string& prompt, const std::string& model, const std::string& url) {
    return ollama_chat_content(http_post_json(url, ollama_chat_request(prompt, model)));
}

std::string scoring_prompt(const InstructionEntry& entry, const std::string& json_key) {
    return "Given the input `" + format_input(entry) + "` and correct output `" + entry.at("output") + "`, score the model response `" +
           entry.at(json_key) + "` on a scale from 0 to 100, where 100 is the best score. Respond with the integer number only.";
}

std::optional<long long> python_int(const std::string& text) {
    std::size_t b = 0, e = text.size();
    while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
    std::string digits;
    bool negative = false;
    if (b < e && (text[b] == '+' || text[b] == '-')) negative = text[b++] == '-';
    for (std::size_t i = b; i < e; ++i) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits += c;
        } else if (c == '_' && i > b && i + 1 < e && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                   std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
            continue;
        } else {
            return std::nullopt;
        }
    }
    if (digits.empty() || digits.size() > 18) return std::nullopt;
    const long long value = std::stoll(digits);
    return negative ? -value : value;
}

std::vector<long long> generate_model_scores(const std::vector<InstructionEntry>& json_data, const std::string& json_key,
                                             const std::function<std::string(const std::string&)>& query,
                                             const std::function<void(const std::string&)>& print) {
    std::vector<long long> scores;
    for (const auto& entry : json_data) {
        if (entry.at(json_key).empty()) {
            scores.push_back(0);
            continue;
        }
        const std::string score = query(scoring_prompt(entry, json_key));
        if (const auto value = python_int(score)) {
            scores.push_back(*value);
        } else {
            print("Could not convert score: " + score);
        }
    }
    return scores;
}

}  // namespace llmfs

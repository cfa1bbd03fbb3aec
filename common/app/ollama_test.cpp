// The Ollama client against a stand-in server in this process (a POSIX socket on 127.0.0.1 that
// answers one request as Ollama's chat endpoint does: a chunked stream of JSON lines), and the scoring
// loop's parsing of scores as Python's int() does.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "llmfs/app/ollama.hpp"

using namespace llmfs;

namespace {

// Listens on 127.0.0.1 (a free port), answers one connection with `reply`, keeps what it received.
class StandInServer {
public:
    explicit StandInServer(std::string reply) : reply_(std::move(reply)) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        socklen_t len = sizeof addr;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        REQUIRE(::listen(fd_, 1) == 0);
        thread_ = std::thread([this] {
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) return;
            char buffer[4096];
            for (;;) {  // the head, then Content-Length bytes of body
                const ssize_t n = ::recv(c, buffer, sizeof buffer, 0);
                if (n <= 0) break;
                received_.append(buffer, static_cast<std::size_t>(n));
                const std::size_t head = received_.find("\r\n\r\n");
                const std::size_t cl = received_.find("Content-Length: ");
                if (head != std::string::npos && cl != std::string::npos &&
                    received_.size() >= head + 4 + std::stoul(received_.substr(cl + 16)))
                    break;
            }
            ::send(c, reply_.data(), reply_.size(), MSG_NOSIGNAL);
            ::close(c);
        });
    }
    ~StandInServer() {
        ::shutdown(fd_, SHUT_RDWR);
        ::close(fd_);
        if (thread_.joinable()) thread_.join();
    }
    std::string url() const { return fmt::format("http://127.0.0.1:{}/api/chat", port_); }
    const std::string& received() {
        if (thread_.joinable()) thread_.join();
        return received_;
    }

private:
    int fd_ = -1;
    int port_ = 0;
    std::string reply_, received_;
    std::thread thread_;
};

std::string chunk(const std::string& data) {
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", data.size());
    return size + data + "\r\n";
}

}  // namespace

TEST_CASE("query_model: the book's request, a chunked stream of JSON lines joined") {
    const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n" +
                              chunk("{\"model\":\"llama3\",\"message\":{\"role\":\"assistant\",\"content\":\"Llamas \"},\"done\":false}\n") +
                              chunk("{\"model\":\"llama3\",\"message\":{\"role\":\"assistant\",\"content\":\"eat h\\u00e9y.\"},\"done\":false}\n"
                                    "{\"model\":\"llama3\",\"done\":true}\n") +
                              "0\r\n\r\n";
    StandInServer server(reply);
    CHECK(query_model("What do Llamas eat?", "llama3", server.url()) == "Llamas eat h\u00e9y.");
    const std::string& request = server.received();
    CHECK(request.rfind("POST " + parse_http_url(server.url()).path + " HTTP/1.1\r\n", 0) == 0);
    CHECK(parse_http_url(server.url()).path == parse_http_url("http://localhost:11434/api/chat").path);
    CHECK(request.find("\r\nContent-Type: application/json\r\n") != std::string::npos);
    const std::string body = request.substr(request.find("\r\n\r\n") + 4);
    CHECK(body == ollama_chat_request("What do Llamas eat?", "llama3"));
    CHECK(nlohmann::json::parse(body) == nlohmann::json::parse(R"({"model": "llama3", "messages": [{"role": "user",
        "content": "What do Llamas eat?"}], "options": {"seed": 123, "temperature": 0, "num_ctx": 2048}})"));
}

TEST_CASE("query_model: an error status, no server, a bad URL") {
    {
        StandInServer server("HTTP/1.1 404 Not Found\r\nContent-Length: 27\r\n\r\n{\"error\":\"model not found\"}");
        CHECK_THROWS_WITH(query_model("x", "llama3", server.url()), Catch::Contains("404 Not Found") && Catch::Contains("model not found"));
    }
    std::string closed_url;
    {
        StandInServer server("");
        closed_url = server.url();
    }
    CHECK_THROWS_AS(check_server(closed_url, 2), ServerUnreachable);
    CHECK_THROWS_AS(query_model("x", "llama3", closed_url), ServerUnreachable);
    CHECK_THROWS_WITH(parse_http_url("https://localhost:11434/api/chat"), Catch::Contains("https"));
    CHECK_THROWS_WITH(parse_http_url("http://localhost:99999/"), Catch::Contains("port"));
    const HttpUrl u = parse_http_url("http://localhost:11435/api/chat");
    CHECK((u.host == "localhost" && u.port == 11435 && u.path == fmt::format("{}/chat", "/api")));
}

TEST_CASE("generate_model_scores: int() of each reply, an empty response scored 0, the others reported") {
    CHECK(python_int(" 85\n") == 85);
    CHECK(python_int("-3") == -3);
    CHECK(python_int("1_000") == 1000);
    CHECK_FALSE(python_int("85.").has_value());
    CHECK_FALSE(python_int("I'd rate it 85").has_value());
    CHECK_FALSE(python_int("").has_value());
    std::vector<InstructionEntry> data(3);
    for (auto& e : data) e.fields = {{"instruction", "Name a color."}, {"input", ""}, {"output", "Blue."}, {"model_response", "Red."}};
    data[1].set("model_response", "");
    std::vector<std::string> prompts, printed;
    const auto scores = generate_model_scores(
        data, "model_response",
        [&](const std::string& prompt) {
            prompts.push_back(prompt);
            return prompts.size() == 1 ? std::string("40") : std::string("forty");
        },
        [&](const std::string& line) { printed.push_back(line); });
    CHECK(scores == std::vector<long long>{40, 0});
    CHECK(printed == std::vector<std::string>{"Could not convert score: forty"});
    REQUIRE(prompts.size() == 2);
    CHECK(prompts[0] == "Given the input `Below is an instruction that describes a task. Write a response that appropriately completes the "
                        "request.\n\n### Instruction:\nName a color.` and correct output `Blue.`, score the model response `Red.` on a "
                        "scale from 0 to 100, where 100 is the best score. Respond with the integer number only.");
}

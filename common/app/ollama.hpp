// Section 7.8's scoring by a local Ollama server (ch07.ipynb and ollama_evaluate.py), as a real
// HTTP client over POSIX sockets (no library, nothing downloaded):
//
//   query_model(prompt, model="llama3", url="http://localhost:11434/api/chat")
//       POST {"model", "messages": [{"role": "user", "content": prompt}],
//             "options": {"seed": 123, "temperature": 0, "num_ctx": 2048}}
//       the streamed reply's lines (JSON each), their "message"."content" joined
//   generate_model_scores(json_data, json_key, model): the book's scoring prompt per entry,
//       int(score) or "Could not convert score: ..." (an empty response scores 0, as the script's)
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "llmfs/train/instruction.hpp"

namespace llmfs {

// http://HOST[:PORT]/PATH, split (PORT 80 when not given). Anything else (https, no host, a bad
// port) is a std::invalid_argument naming the URL.
struct HttpUrl {
    std::string host;
    int port = 80;
    std::string path = "/";
};
HttpUrl parse_http_url(const std::string& url);

// Thrown when no server answers at the URL (connection refused, no such host, timed out): the
// caller's "Ollama not running" case.
struct ServerUnreachable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Connects to the URL's host and port and closes again: the script's "is Ollama running" check,
// made on the server itself. ServerUnreachable when nothing answers.
void check_server(const std::string& url, int timeout_s = 5);

// POST `body` (JSON) to `url` with HTTP/1.1 and "Connection: close"; the reply's body, de-chunked
// when the server streams it in chunks. A status other than 2xx is a std::runtime_error with the
// status line and the start of the body; `timeout_s` bounds the connection and each read.
std::string http_post_json(const std::string& url, const std::string& body, int timeout_s = 30);

// The request query_model sends (the JSON text, keys in the book's order).
std::string ollama_chat_request(const std::string& prompt, const std::string& model);
// The reply's content: each non-empty line parsed as JSON, "message"."content" concatenated.
// A line that is not JSON is a std::runtime_error quoting it.
std::string ollama_chat_content(const std::string& reply);

std::string query_model(const std::string& prompt, const std::string& model = "llama3",
                        const std::string& url = "http://localhost:11434/api/chat");

// The book's prompt for one entry: input, correct output, and entry[json_key] to score.
std::string scoring_prompt(const InstructionEntry& entry, const std::string& json_key);

// Python's int(text) for a score: surrounding whitespace, an optional sign, decimal digits
// (single underscores between them); nothing otherwise.
std::optional<long long> python_int(const std::string& text);

// generate_model_scores: `query` asks the model (query_model in the tools, a stand-in in tests);
// `print` gets the "Could not convert score: ..." lines.
std::vector<long long> generate_model_scores(const std::vector<InstructionEntry>& json_data, const std::string& json_key,
                                             const std::function<std::string(const std::string&)>& query,
                                             const std::function<void(const std::string&)>& print);

}  // namespace llmfs

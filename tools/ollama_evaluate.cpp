// llmfs-ollama-evaluate: the book's ch07/01_main-chapter-code/ollama_evaluate.py (section 7.8):
// scores each entry's model_response with a local Ollama server's llama3, as a real HTTP client
// (common/app/ollama.hpp). Without a server: "Ollama not running" and exit status 1.
//   --file_path FILE   the responses, as llmfs-finetune-instruction or the notebook saves them
//   --model NAME       the scoring model (the script's "llama3")
//   --url URL          the server's chat endpoint (the script's http://localhost:11434/api/chat)
#include <iostream>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "llmfs/app/cli.hpp"
#include "llmfs/app/ollama.hpp"
#include "llmfs/app/script.hpp"

using namespace llmfs;

int main(int argc, char** argv) {
    return run_script(argc, argv, "Evaluate model responses with ollama",
                      [](ArgumentParser& p) {
                          p.add_string("--file_path", "",
                                       "The path to the test dataset `.json` file with the `'output'` and `'model_response'` keys");
                          p.add_string("--model", "llama3", "The Ollama model that scores (llmfs: the script's llama3).");
                          p.add_string("--url", "http://localhost:11434/api/chat", "The Ollama server's chat endpoint (llmfs).");
                      },
                      [](const ArgumentParser& args) {
                          const std::string& file_path = args.get_string("file_path");
                          if (file_path.empty()) throw std::invalid_argument("the following arguments are required: --file_path");
                          const std::string& url = args.get_string("url");
                          try {
                              check_server(url);
                          } catch (const ServerUnreachable& e) {
                              throw std::runtime_error(std::string("Ollama not running. Launch ollama before proceeding (") + e.what() + ")");
                          }
                          std::cout << "Ollama running: True" << std::endl;
                          const auto test_data = load_instruction_data(file_path);
                          for (std::size_t i = 0; i < test_data.size(); ++i) {
                              try {
                                  test_data[i].at("model_response");
                              } catch (const std::out_of_range&) {
                                  throw std::invalid_argument(fmt::format("{}: entry {} has no \"model_response\"", file_path, i));
                              }
                          }
                          Progress progress("Scoring entries");
                          std::size_t done = 0;
                          const auto scores = generate_model_scores(
                              test_data, "model_response",
                              [&](const std::string& prompt) {
                                  std::string reply = query_model(prompt, args.get_string("model"), url);
                                  progress(++done, test_data.size());
                                  return reply;
                              },
                              [](const std::string& line) { std::cout << line << std::endl; });
                          std::cout << fmt::format("Number of scores: {} of {}", scores.size(), test_data.size()) << std::endl;
                          if (scores.empty()) throw std::runtime_error("no score to average (Python: ZeroDivisionError)");
                          const double sum = static_cast<double>(std::accumulate(scores.begin(), scores.end(), 0LL));
                          std::cout << fmt::format("Average score: {:.2f}\n", sum / static_cast<double>(scores.size())) << std::endl;
                      });
}

// Reading a zip archive held in memory: the data files the book's notebooks download as zips
// (chapter 6's sms_spam_collection.zip). Members stored (method 0) or deflated (method 8, inflated
// by zlib), each checked against the CRC-32 and size the central directory records.
//   zip_member_names(bytes)                  -> {"SMSSpamCollection", "readme"}
//   read_zip_member(bytes, "SMSSpamCollection") -> the member's bytes
// No ZIP64, no encryption, no multi-disk archives: such an archive is refused with a message saying
// so. Every failure is a std::runtime_error naming what is wrong (not a zip, a truncated record, a
// missing member, a CRC mismatch), never a read past the bytes given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmfs {

// The members' names, in the central directory's order.
std::vector<std::string> zip_member_names(std::string_view archive);

// The bytes of the member called `name`; a std::runtime_error listing the members when there is none.
std::string read_zip_member(std::string_view archive, const std::string& name);

}  // namespace llmfs

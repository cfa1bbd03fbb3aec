#include "llmfs/text/zip_archive.hpp"

#include <zlib.h>

#include <cstdint>
#include <stdexcept>

namespace llmfs {
namespace {

constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::size_t kEndRecordSize = 22;
constexpr std::size_t kCentralRecordSize = 46;
constexpr std::size_t kLocalRecordSize = 30;

struct Member {
    std::string name;
    std::uint16_t flags = 0;
    std::uint16_t method = 0;
    std::uint32_t crc = 0;
    std::uint32_t compressed_size = 0;
    std::uint32_t size = 0;
    std::uint32_t local_offset = 0;
};

std::uint16_t u16(std::string_view b, std::size_t at) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) |
                                      (static_cast<unsigned char>(b[at + 1]) << 8));
}

std::uint32_t u32(std::string_view b, std::size_t at) {
    return static_cast<std::uint32_t>(u16(b, at)) | (static_cast<std::uint32_t>(u16(b, at + 2)) << 16);
}

[[noreturn]] void fail(const std::string& why) { throw std::runtime_error("not a readable zip archive: " + why); }

// The central directory's records, from the end-of-central-directory record found nearest the end.
std::vector<Member> central_directory(std::string_view b) {
    if (b.size() < kEndRecordSize) fail("shorter than an end-of-central-directory record");
    std::size_t end = std::string_view::npos;
    std::size_t lowest = b.size() > kEndRecordSize + 0xFFFF ? b.size() - kEndRecordSize - 0xFFFF : 0;
    for (std::size_t at = b.size() - kEndRecordSize + 1; at-- > lowest;) {
        if (u32(b, at) == kEndOfCentralDirectory && at + kEndRecordSize + u16(b, at + 20) == b.size()) {
            end = at;
            break;
        }
    }
    if (end == std::string_view::npos) fail("no end-of-central-directory record");
    std::uint16_t disk = u16(b, end + 4), directory_disk = u16(b, end + 6);
    std::uint16_t entries_here = u16(b, end + 8), entries = u16(b, end + 10);
    std::uint32_t directory_size = u32(b, end + 12), directory_offset = u32(b, end + 16);
    if (disk != 0 || directory_disk != 0 || entries_here != entries) fail("a multi-disk archive");
    if (entries == 0xFFFF || directory_offset == 0xFFFFFFFFu || directory_size == 0xFFFFFFFFu)
        fail("a ZIP64 archive (not read here)");
    if (std::uint64_t{directory_offset} + directory_size > end) fail("the central directory lies outside the file");
    std::vector<Member> members;
    std::size_t at = directory_offset;
    for (std::uint16_t i = 0; i < entries; ++i) {
        if (at + kCentralRecordSize > end || u32(b, at) != kCentralHeader)
            fail("central directory record " + std::to_string(i) + " is truncated or malformed");
        Member m;
        m.flags = u16(b, at + 8);
        m.method = u16(b, at + 10);
        m.crc = u32(b, at + 16);
        m.compressed_size = u32(b, at + 20);
        m.size = u32(b, at + 24);
        std::size_t name_length = u16(b, at + 28), extra = u16(b, at + 30), comment = u16(b, at + 32);
        m.local_offset = u32(b, at + 42);
        if (at + kCentralRecordSize + name_length + extra + comment > end)
            fail("central directory record " + std::to_string(i) + " is truncated");
        m.name = std::string(b.substr(at + kCentralRecordSize, name_length));
        members.push_back(std::move(m));
        at += kCentralRecordSize + name_length + extra + comment;
    }
    return members;
}

std::string inflate_raw(std::string_view data, std::size_t size, const std::string& name) {
    std::string out(size + 1, '\0');  // one spare byte: inflate needs room even for an empty member
    z_stream s{};
    if (inflateInit2(&s, -MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    s.avail_in = static_cast<uInt>(data.size());
    s.next_out = reinterpret_cast<Bytef*>(out.data());
    s.avail_out = static_cast<uInt>(out.size());
    int rc = inflate(&s, Z_FINISH);
    std::size_t produced = s.total_out;
    inflateEnd(&s);
    if (rc != Z_STREAM_END || produced != size)
        fail("member " + name + " does not inflate to the " + std::to_string(size) + " bytes recorded");
    out.resize(size);
    return out;
}

}  // namespace

std::vector<std::string> zip_member_names(std::string_view archive) {
    std::vector<std::string> names;
    for (const Member& m : central_directory(archive)) names.push_back(m.name);
    return names;
}

std::string read_zip_member(std::string_view b, const std::string& name) {
    std::vector<Member> members = central_directory(b);
    const Member* found = nullptr;
    std::string listed;
    for (const Member& m : members) {
        if (m.name == name) found = &m;
        listed += (listed.empty() ? "" : ", ") + m.name;
    }
    if (found == nullptr)
        throw std::runtime_error("the zip archive has no member " + name + " (its members: " +
                                 (listed.empty() ? "none" : listed) + ")");
    const Member& m = *found;
    if (m.flags & 1) fail("member " + name + " is encrypted");
    if (m.size == 0xFFFFFFFFu || m.compressed_size == 0xFFFFFFFFu) fail("member " + name + " has ZIP64 sizes (not read here)");
    std::size_t at = m.local_offset;
    if (at + kLocalRecordSize > b.size() || u32(b, at) != kLocalHeader)
        fail("member " + name + "'s local header is missing");
    std::size_t data_at = at + kLocalRecordSize + u16(b, at + 26) + u16(b, at + 28);
    if (data_at + std::uint64_t{m.compressed_size} > b.size()) fail("member " + name + " is truncated");
    std::string_view data = b.substr(data_at, m.compressed_size);
    std::string out;
    if (m.method == 0) {
        if (m.compressed_size != m.size) fail("stored member " + name + " has two different sizes");
        out = std::string(data);
    } else if (m.method == 8) {
        if (m.size > std::uint64_t{m.compressed_size} * 1032 + 64)  // deflate expands at most 1032:1
            fail("member " + name + " records more bytes than its compressed data can hold");
        out = inflate_raw(data, m.size, name);
    } else {
        fail("member " + name + " uses compression method " + std::to_string(m.method) +
             " (only stored and deflated members are read)");
    }
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size()));
    if (crc != m.crc) fail("member " + name + "'s CRC-32 does not match its bytes");
    return out;
}

}  // namespace llmfs

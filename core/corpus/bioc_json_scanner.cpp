#include "corpus/bioc_json_scanner.h"

#include <array>
#include <string_view>

#include <zlib.h>

#include "util/error.h"
#include "util/input_file.h"
#include "util/json_file.h"

namespace linkscope {

struct BioCJsonScanner::State {
    enum class Where {
        Start,          // before the collection's '{'
        Members,        // before a key, or the '}', of the collection
        AfterMember,    // after a member's value: ',' or '}'
        Documents,      // inside the documents array, before an element or ']'
        AfterDocument,  // after a document: ',' or ']'
        Done,
    };

    GzipInput file;
    std::string name;
    std::size_t maxValueBytes = 0;
    std::array<char, 1 << 16> buffer{};
    std::size_t position = 0;
    std::size_t filled = 0;
    std::uint64_t bufferOffset = 0;  // decompressed bytes before buffer[0]
    std::uint64_t bufferKey = 0;     // the stored bytes read when the buffer was filled
    std::size_t line = 1;
    bool atStart = true;
    Where where = Where::Start;
    bool sawDocuments = false;
    bool firstMember = true;

    [[noreturn]] void fail(const std::string& message) const { throw ParseError(name, line, message); }

    // The next byte without consuming it; -1 at the end of the file.
    int peek() {
        if (position == filled) {
            const int read = gzread(file.get(), buffer.data(), static_cast<unsigned>(buffer.size()));
            if (read < 0) fail("cannot read the file (damaged gzip data?)");
            bufferOffset += filled;
            bufferKey = static_cast<std::uint64_t>(gzoffset(file.get()));
            filled = static_cast<std::size_t>(read);
            position = 0;
            if (filled == 0) return -1;
            if (atStart) {
                atStart = false;
                if (std::string_view(buffer.data(), filled).starts_with("\xEF\xBB\xBF")) position = 3;
                if (position == filled) return peek();
            }
        }
        return static_cast<unsigned char>(buffer[position]);
    }

    int get() {
        const int c = peek();
        if (c < 0) return c;
        ++position;
        if (c == '\n') ++line;
        return c;
    }

    // The position key of the next byte (BioCJsonScanner::Piece::positionKey).
    std::uint64_t positionKey() const { return gzdirect(file.get()) ? bufferOffset + position : bufferKey; }

    static bool blank(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

    int skipBlanks() {
        while (blank(peek())) get();
        return peek();
    }

    std::string describe(int c) const {
        if (c < 0) return "the end of the file";
        if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
        return "byte " + std::to_string(c);
    }

    void expect(char wanted, const char* where) {
        const int c = skipBlanks();
        if (c < 0) fail("truncated: the file ends before the collection is closed");
        if (c != wanted)
            fail(std::string("not a BioC JSON collection: expected '") + wanted + "' " + where + ", found " +
                 describe(c));
        get();
    }

    void append(std::string& out, char c, std::size_t startLine) const {
        if (out.size() >= maxValueBytes)
            throw ParseError(name, startLine,
                             "a value of more than " + std::to_string(maxValueBytes) +
                                 " bytes: more than this reader holds at once (a BioC document is far smaller)");
        out.push_back(c);
    }

    // A string's raw text from its opening quote, quotes included.
    void copyString(std::string& out, std::size_t startLine) {
        append(out, static_cast<char>(get()), startLine);  // the opening quote
        bool escaped = false;
        for (;;) {
            const int c = get();
            if (c < 0) fail("truncated: the file ends inside a string");
            append(out, static_cast<char>(c), startLine);
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                return;
        }
    }

    // One JSON value's raw text, nesting and size checked as it is copied; `depth` is the
    // nesting of the value's container in the file.
    std::string copyValue(int depth, std::size_t& startLine) {
        std::string out;
        int c = skipBlanks();
        startLine = line;
        if (c < 0) fail("truncated: the file ends where a value was expected");
        if (c == '"') {
            copyString(out, startLine);
            return out;
        }
        if (c != '{' && c != '[') {
            while ((c = peek()) >= 0 && !blank(c) && c != ',' && c != ']' && c != '}')
                append(out, static_cast<char>(get()), startLine);
            if (out.empty()) fail("expected a value, found " + describe(c));
            return out;
        }
        int open = 0;
        do {
            c = peek();
            if (c < 0) fail("truncated: the file ends inside a value that starts at line " + std::to_string(startLine));
            if (c == '"') {
                copyString(out, startLine);
                continue;
            }
            if (c == '{' || c == '[') {
                if (depth + ++open > kMaxJsonDepth)
                    fail("not valid JSON: nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
            } else if (c == '}' || c == ']') {
                --open;
            }
            append(out, static_cast<char>(get()), startLine);
        } while (open > 0);
        return out;
    }

    // A member's key, decoded.
    std::string readKey() {
        if (peek() != '"') fail("not a BioC JSON collection: expected a key (a string), found " + describe(peek()));
        std::string raw;
        const std::size_t startLine = line;
        copyString(raw, startLine);
        const nlohmann::json key = parseJson(raw, name);
        return key.get<std::string>();
    }
};

BioCJsonScanner::BioCJsonScanner(const std::filesystem::path& path, std::size_t maxValueBytes)
    : state_(std::make_unique<State>()) {
    state_->file = openGzipInput(path, "the BioC JSON file");
    state_->name = path.string();
    state_->maxValueBytes = maxValueBytes;
}

BioCJsonScanner::~BioCJsonScanner() = default;

const std::string& BioCJsonScanner::fileName() const noexcept { return state_->name; }

bool BioCJsonScanner::next(Piece& piece) {
    State& s = *state_;
    using Where = State::Where;
    for (;;) {
        switch (s.where) {
            case Where::Start: {
                const int c = s.skipBlanks();
                if (c < 0) s.fail("empty file (no BioC collection)");
                s.expect('{', "at the start of the file (a BioC collection is one JSON object)");
                s.where = Where::Members;
                break;
            }
            case Where::Members: {
                const int c = s.skipBlanks();
                if (c == '}' && s.firstMember) {
                    s.get();
                    s.where = Where::Done;
                    break;
                }
                s.firstMember = false;
                std::string key = s.readKey();
                s.expect(':', "after a key");
                if (key == "documents" || key == "PubTator3") {
                    if (s.sawDocuments) s.fail("a second documents array (\"" + key + "\") in the collection");
                    s.sawDocuments = true;
                    s.expect('[', "at the start of the documents array");
                    s.where = Where::Documents;
                    if (s.skipBlanks() == ']') {
                        s.get();
                        s.where = Where::AfterMember;
                    }
                    break;
                }
                piece.kind = Piece::Kind::Member;
                piece.key = std::move(key);
                s.skipBlanks();
                piece.positionKey = s.positionKey();
                piece.json = s.copyValue(1, piece.line);
                s.where = Where::AfterMember;
                return true;
            }
            case Where::AfterMember: {
                const int c = s.skipBlanks();
                if (c < 0) s.fail("truncated: the file ends before the collection is closed");
                if (c == ',') {
                    s.get();
                    s.skipBlanks();
                    s.where = Where::Members;
                } else if (c == '}') {
                    s.get();
                    s.where = Where::Done;
                } else {
                    s.fail("not a BioC JSON collection: expected ',' or '}' after a member, found " + s.describe(c));
                }
                break;
            }
            case Where::Documents: {
                piece.kind = Piece::Kind::Document;
                piece.key = "documents";
                s.skipBlanks();
                piece.positionKey = s.positionKey();
                piece.json = s.copyValue(2, piece.line);
                s.where = Where::AfterDocument;
                return true;
            }
            case Where::AfterDocument: {
                const int c = s.skipBlanks();
                if (c < 0) s.fail("truncated: the file ends before the collection is closed");
                if (c == ',') {
                    s.get();
                    s.where = Where::Documents;
                } else if (c == ']') {
                    s.get();
                    s.where = Where::AfterMember;
                } else {
                    s.fail("expected ',' or ']' after a document, found " + s.describe(c));
                }
                break;
            }
            case Where::Done: {
                const int c = s.skipBlanks();
                if (c >= 0) s.fail("more after the end of the collection, found " + s.describe(c));
                return false;
            }
        }
    }
}

}  // namespace linkscope

// The restricted unpickler: opcode by opcode, with the closed list of globals. Python's own
// pickletools documents each opcode; only those a torch state dict (or a pickled tensor) uses
// are read, every other one is refused by name.
#include "encoder/pickle_machine.h"

#include <array>
#include <bit>
#include <cstring>
#include <limits>

#include "util/error.h"

namespace linkscope::encoder::pickle {
namespace {

/// Storage classes torch writes, with the dtype of their elements.
struct StorageClass {
    std::string_view name;
    DType dtype;
};
constexpr std::array kStorageClasses{
    StorageClass{"FloatStorage", DType::F32},     StorageClass{"HalfStorage", DType::F16},
    StorageClass{"BFloat16Storage", DType::BF16}, StorageClass{"DoubleStorage", DType::F64},
    StorageClass{"LongStorage", DType::I64},      StorageClass{"IntStorage", DType::I32},
    StorageClass{"ShortStorage", DType::I16},     StorageClass{"CharStorage", DType::I8},
    StorageClass{"ByteStorage", DType::U8},       StorageClass{"BoolStorage", DType::Bool},
};

constexpr std::string_view kAllowedNames =
    "collections.OrderedDict, torch._utils._rebuild_tensor_v2, torch._utils._rebuild_parameter and "
    "torch.<Float|Half|BFloat16|Double|Long|Int|Short|Char|Byte|Bool>Storage";

/// A name from the input, quoted and shortened for a message.
std::string shownText(std::string_view text) {
    constexpr std::size_t kShown = 100;
    std::string shown;
    for (const char c : text.substr(0, kShown)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return "'" + shown + (text.size() > kShown ? "...'" : "'");
}

std::string globalName(Global global, DType dtype) {
    switch (global) {
        case Global::OrderedDict:
            return "collections.OrderedDict";
        case Global::RebuildTensorV2:
            return "torch._utils._rebuild_tensor_v2";
        case Global::RebuildParameter:
            return "torch._utils._rebuild_parameter";
        case Global::StorageClass:
            for (const auto& storage : kStorageClasses)
                if (storage.dtype == dtype) return "torch." + std::string(storage.name);
    }
    return "?";
}

}  // namespace

std::string_view kindName(Value::Kind kind) noexcept {
    switch (kind) {
        case Value::Kind::None:
            return "None";
        case Value::Kind::Bool:
            return "bool";
        case Value::Kind::Int:
            return "int";
        case Value::Kind::BigInt:
            return "long int";
        case Value::Kind::Float:
            return "float";
        case Value::Kind::String:
            return "str";
        case Value::Kind::Bytes:
            return "bytes";
        case Value::Kind::Tuple:
            return "tuple";
        case Value::Kind::List:
            return "list";
        case Value::Kind::Dict:
            return "dict";
        case Value::Kind::Global:
            return "global";
        case Value::Kind::Storage:
            return "storage";
        case Value::Kind::Tensor:
            return "tensor";
    }
    return "?";
}

void SpanInput::read(std::span<std::byte> into) {
    if (into.size() > remaining())
        throw ParseError(name_, 0,
                         "the pickle ends at byte " + std::to_string(bytes_.size()) + " inside an opcode's data (" +
                             std::to_string(into.size()) + " bytes wanted at byte " + std::to_string(at_) + ")");
    if (!into.empty()) std::memcpy(into.data(), bytes_.data() + at_, into.size());
    at_ += into.size();
}

void Machine::fail(const std::string& message) const {
    throw ParseError(name_, 0, "pickle opcode at byte " + std::to_string(opcodeAt_) + ": " + message);
}

ValueId Machine::make(Value value) {
    if (arena_.size() >= kMaxObjects)
        fail("more than " + std::to_string(kMaxObjects) + " objects: not a state dict this reader accepts");
    arena_.push_back(std::move(value));
    return static_cast<ValueId>(arena_.size() - 1);
}

ValueId Machine::pop() {
    if (stack_.empty() || (!marks_.empty() && stack_.size() == marks_.back())) fail("pops an empty stack");
    const ValueId top = stack_.back();
    stack_.pop_back();
    return top;
}

std::vector<ValueId> Machine::popToMark() {
    if (marks_.empty()) fail("needs a MARK and there is none");
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    std::vector<ValueId> items(stack_.begin() + static_cast<std::ptrdiff_t>(mark), stack_.end());
    stack_.resize(mark);
    return items;
}

std::int64_t Machine::integerOf(ValueId id, std::string_view what) const {
    const Value& value = arena_[id];
    if (value.kind != Value::Kind::Int && value.kind != Value::Kind::Bool)
        fail(std::string(what) + " is a " + std::string(kindName(value.kind)) + ", not an int");
    return value.integer;
}

const std::string& Machine::stringOf(ValueId id, std::string_view what) const {
    const Value& value = arena_[id];
    if (value.kind != Value::Kind::String)
        fail(std::string(what) + " is a " + std::string(kindName(value.kind)) + ", not a str");
    return value.text;
}

ValueId Machine::resolveGlobal(std::string_view module, std::string_view name) {
    Value value;
    value.kind = Value::Kind::Global;
    if (module == "collections" && name == "OrderedDict") {
        value.global = Global::OrderedDict;
        return make(std::move(value));
    }
    if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
        value.global = Global::RebuildTensorV2;
        return make(std::move(value));
    }
    if (module == "torch._utils" && name == "_rebuild_parameter") {
        value.global = Global::RebuildParameter;
        return make(std::move(value));
    }
    if (module == "torch")
        for (const auto& storage : kStorageClasses)
            if (storage.name == name) {
                value.global = Global::StorageClass;
                value.dtype = storage.dtype;
                return make(std::move(value));
            }
    fail("refuses the global " + shownText(std::string(module) + "." + std::string(name)) +
         ": only the names that rebuild tensors and state dicts are resolved (" + std::string(kAllowedNames) +
         "); nothing was run");
}

ValueId Machine::persistentLoad(ValueId id) {
    const Value& pid = arena_[id];
    if (pid.kind != Value::Kind::Tuple || (pid.items.size() != 5 && pid.items.size() != 6))
        fail(
            "a persistent id must be a tuple ('storage', torch.XStorage, key, location, numel[, view]); this "
            "one is a " +
            std::string(kindName(pid.kind)) + " of " + std::to_string(pid.items.size()) + " items");
    const auto items = pid.items;  // arena_ may grow below
    if (stringOf(items[0], "the persistent id's tag") != "storage")
        fail("persistent id tagged " + shownText(arena_[items[0]].text) + ", not 'storage'");
    const Value& type = arena_[items[1]];
    if (type.kind != Value::Kind::Global || type.global != Global::StorageClass)
        fail("persistent id's storage type is a " + std::string(kindName(type.kind)) + ", not a torch.XStorage class");
    StorageUse use;
    use.dtype = type.dtype;
    use.key = stringOf(items[2], "the storage key");
    stringOf(items[3], "the storage location");
    const std::int64_t numel = integerOf(items[4], "the storage's element count");
    if (numel < 0) fail("storage " + shownText(use.key) + " declares " + std::to_string(numel) + " elements");
    use.numel = static_cast<std::uint64_t>(numel);
    use.viewNumel = use.numel;
    if (items.size() == 6 && arena_[items[5]].kind != Value::Kind::None) {
        const Value& view = arena_[items[5]];
        if (view.kind != Value::Kind::Tuple || view.items.size() != 3)
            fail("storage " + shownText(use.key) + ": view metadata must be (view_key, offset, numel)");
        const auto viewItems = view.items;
        const std::string& viewKey = stringOf(viewItems[0], "the storage view key");
        const std::int64_t begin = integerOf(viewItems[1], "the storage view offset");
        const std::int64_t count = integerOf(viewItems[2], "the storage view size");
        if (begin < 0 || count < 0 || static_cast<std::uint64_t>(begin) > use.numel ||
            static_cast<std::uint64_t>(count) > use.numel - static_cast<std::uint64_t>(begin))
            fail("storage view " + shownText(viewKey) + " [" + std::to_string(begin) + ", +" + std::to_string(count) +
                 ") lies outside its storage " + shownText(use.key) + " of " + std::to_string(use.numel) + " elements");
        use.viewBegin = static_cast<std::uint64_t>(begin);
        use.viewNumel = static_cast<std::uint64_t>(count);
    }
    storages_.push_back(std::move(use));
    Value value;
    value.kind = Value::Kind::Storage;
    value.integer = static_cast<std::int64_t>(storages_.size() - 1);
    return make(std::move(value));
}

ValueId Machine::rebuildTensor(const Value& arguments) {
    // _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[,
    // metadata]): the last three do not change the values.
    if (arguments.items.size() != 6 && arguments.items.size() != 7)
        fail("_rebuild_tensor_v2 takes 6 or 7 arguments, this call has " + std::to_string(arguments.items.size()));
    const auto items = arguments.items;
    const Value& storage = arena_[items[0]];
    if (storage.kind != Value::Kind::Storage)
        fail("_rebuild_tensor_v2's first argument is a " + std::string(kindName(storage.kind)) + ", not a storage");
    TensorUse tensor;
    tensor.storage = static_cast<std::size_t>(storage.integer);
    const std::int64_t offset = integerOf(items[1], "the tensor's storage offset");
    if (offset < 0) fail("a tensor's storage offset is negative (" + std::to_string(offset) + ")");
    tensor.offset = static_cast<std::uint64_t>(offset);
    const Value& sizes = arena_[items[2]];
    const Value& strides = arena_[items[3]];
    if (sizes.kind != Value::Kind::Tuple || strides.kind != Value::Kind::Tuple)
        fail("a tensor's size and stride must be tuples");
    if (sizes.items.size() != strides.items.size())
        fail("a tensor has " + std::to_string(sizes.items.size()) + " sizes but " +
             std::to_string(strides.items.size()) + " strides");
    constexpr std::size_t kMaxDimensions = 64;
    if (sizes.items.size() > kMaxDimensions)
        fail("a tensor has " + std::to_string(sizes.items.size()) + " dimensions (at most 64)");
    for (std::size_t i = 0; i < sizes.items.size(); ++i) {
        const std::int64_t size = integerOf(sizes.items[i], "a tensor size");
        const std::int64_t stride = integerOf(strides.items[i], "a tensor stride");
        if (size < 0 || stride < 0)
            fail("a tensor has size " + std::to_string(size) + " and stride " + std::to_string(stride) +
                 " in dimension " + std::to_string(i) + " (negative)");
        tensor.sizes.push_back(size);
        tensor.strides.push_back(stride);
    }
    tensors_.push_back(std::move(tensor));
    Value value;
    value.kind = Value::Kind::Tensor;
    value.integer = static_cast<std::int64_t>(tensors_.size() - 1);
    return make(std::move(value));
}

ValueId Machine::reduce(ValueId callable, ValueId argumentsId) {
    const Value& function = arena_[callable];
    if (function.kind != Value::Kind::Global)
        fail("REDUCE calls a " + std::string(kindName(function.kind)) + "; only " + std::string(kAllowedNames) +
             " may be called");
    const Value& arguments = arena_[argumentsId];
    if (arguments.kind != Value::Kind::Tuple)
        fail("REDUCE of " + globalName(function.global, function.dtype) + " with a " +
             std::string(kindName(arguments.kind)) + " for arguments, not a tuple");
    switch (function.global) {
        case Global::OrderedDict: {
            if (!arguments.items.empty())
                fail("REDUCE of collections.OrderedDict with arguments (torch writes an empty one, then SETITEMS)");
            Value dict;
            dict.kind = Value::Kind::Dict;
            return make(std::move(dict));
        }
        case Global::RebuildTensorV2:
            return rebuildTensor(arguments);
        case Global::RebuildParameter: {
            // _rebuild_parameter(data, requires_grad, backward_hooks): the tensor itself.
            if (arguments.items.size() != 3)
                fail("_rebuild_parameter takes 3 arguments, this call has " + std::to_string(arguments.items.size()));
            if (arena_[arguments.items[0]].kind != Value::Kind::Tensor)
                fail("_rebuild_parameter's first argument is a " +
                     std::string(kindName(arena_[arguments.items[0]].kind)) + ", not a tensor");
            return arguments.items[0];
        }
        case Global::StorageClass:
            break;
    }
    fail("refuses REDUCE of " + globalName(function.global, function.dtype) + " (a storage class is never called)");
}

ValueId Machine::run(ByteInput& in) {
    auto readBytes = [&](std::size_t count) {
        std::string bytes(count, '\0');
        in.read(std::as_writable_bytes(std::span(bytes)));
        return bytes;
    };
    auto readUnsigned = [&](std::size_t width) {
        std::array<std::byte, 8> raw{};
        in.read(std::span(raw).first(width));
        std::uint64_t value = 0;
        for (std::size_t i = 0; i < width; ++i) value |= std::uint64_t(std::to_integer<unsigned>(raw[i])) << (8 * i);
        return value;
    };
    // A length the input declares, checked against what is left before anything is allocated.
    auto readLength = [&](std::size_t width) {
        const std::uint64_t length = readUnsigned(width);
        if (length > in.remaining())
            fail("declares " + std::to_string(length) + " bytes of data but only " + std::to_string(in.remaining()) +
                 " remain");
        return static_cast<std::size_t>(length);
    };
    auto readLine = [&] {
        std::string line;
        for (;;) {
            std::byte c{};
            in.read(std::span(&c, 1));
            if (c == std::byte{'\n'}) return line;
            if (line.size() >= 1024) fail("a GLOBAL name longer than 1024 bytes");
            line += static_cast<char>(c);
        }
    };
    auto push = [&](ValueId id) {
        if (stack_.size() >= kMaxObjects) fail("the stack holds more than " + std::to_string(kMaxObjects) + " items");
        stack_.push_back(id);
    };
    auto pushNew = [&](Value::Kind kind) {
        Value value;
        value.kind = kind;
        push(make(std::move(value)));
    };
    auto pushInt = [&](std::int64_t integer, Value::Kind kind = Value::Kind::Int) {
        Value value;
        value.kind = kind;
        value.integer = integer;
        push(make(std::move(value)));
    };
    auto pushText = [&](std::string text, Value::Kind kind) {
        Value value;
        value.kind = kind;
        value.text = std::move(text);
        push(make(std::move(value)));
    };
    auto memoPut = [&](std::uint64_t index) {
        if (stack_.empty()) fail("memoizes an empty stack");
        if (memo_.size() >= kMaxObjects) fail("the memo holds more than " + std::to_string(kMaxObjects) + " items");
        memo_[static_cast<std::uint32_t>(index)] = stack_.back();
    };
    auto memoGet = [&](std::uint64_t index) {
        const auto found = memo_.find(static_cast<std::uint32_t>(index));
        if (found == memo_.end()) fail("reads memo entry " + std::to_string(index) + ", which was never stored");
        push(found->second);
    };
    auto container = [&](std::string_view opcode, Value::Kind kind) -> Value& {
        if (stack_.empty()) fail(std::string(opcode) + " on an empty stack");
        Value& target = arena_[stack_.back()];
        if (target.kind != kind)
            fail(std::string(opcode) + " on a " + std::string(kindName(target.kind)) + ", not a " +
                 std::string(kindName(kind)));
        return target;
    };
    auto appendItems = [&](std::string_view opcode, Value::Kind kind, std::vector<ValueId> items) {
        Value& target = container(opcode, kind);
        if (kind == Value::Kind::Dict && items.size() % 2 != 0)
            fail(std::string(opcode) + " with an odd number of items (keys and values come in pairs)");
        target.items.insert(target.items.end(), items.begin(), items.end());
    };
    auto tuple = [&](std::vector<ValueId> items) {
        Value value;
        value.kind = Value::Kind::Tuple;
        value.items = std::move(items);
        push(make(std::move(value)));
    };

    for (;;) {
        opcodeAt_ = in.position();
        std::byte raw{};
        in.read(std::span(&raw, 1));
        const auto opcode = std::to_integer<unsigned char>(raw);
        switch (opcode) {
            case 0x80: {  // PROTO
                const auto version = readUnsigned(1);
                if (version < 2 || version > 5)
                    fail("pickle protocol " + std::to_string(version) + " (2 to 5 are read)");
                break;
            }
            case 0x95:  // FRAME: a length hint; the opcodes inside are read as usual
                readUnsigned(8);
                break;
            case '.': {  // STOP
                if (stack_.size() != 1 || !marks_.empty())
                    fail("STOP with " + std::to_string(stack_.size()) + " items on the stack and " +
                         std::to_string(marks_.size()) + " open MARKs (one value expected)");
                return stack_.back();
            }
            case '(':  // MARK
                if (marks_.size() >= kMaxObjects) fail("too many open MARKs");
                marks_.push_back(stack_.size());
                break;
            case '0':  // POP
                pop();
                break;
            case '1':  // POP_MARK
                popToMark();
                break;
            case 'N':
                pushNew(Value::Kind::None);
                break;
            case 0x88:  // NEWTRUE
                pushInt(1, Value::Kind::Bool);
                break;
            case 0x89:  // NEWFALSE
                pushInt(0, Value::Kind::Bool);
                break;
            case 'J':  // BININT
                pushInt(static_cast<std::int32_t>(static_cast<std::uint32_t>(readUnsigned(4))));
                break;
            case 'K':  // BININT1
                pushInt(static_cast<std::int64_t>(readUnsigned(1)));
                break;
            case 'M':  // BININT2
                pushInt(static_cast<std::int64_t>(readUnsigned(2)));
                break;
            case 0x8a: {  // LONG1: little-endian two's complement of n bytes
                const std::size_t length = readLength(1);
                std::string bytes = readBytes(length);
                if (length <= 8) {
                    std::uint64_t value = 0;
                    for (std::size_t i = 0; i < length; ++i)
                        value |= std::uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
                    if (length > 0 && length < 8 && (static_cast<unsigned char>(bytes[length - 1]) & 0x80))
                        value |= ~std::uint64_t{0} << (8 * length);  // sign extension
                    pushInt(static_cast<std::int64_t>(value));
                } else {
                    pushText(std::move(bytes), Value::Kind::BigInt);  // the legacy format's magic number
                }
                break;
            }
            case 'G': {  // BINFLOAT: big-endian IEEE double
                const std::string bytes = readBytes(8);
                std::uint64_t bits = 0;
                for (const char c : bytes) bits = (bits << 8) | static_cast<unsigned char>(c);
                Value value;
                value.kind = Value::Kind::Float;
                value.real = std::bit_cast<double>(bits);
                push(make(std::move(value)));
                break;
            }
            case 'X':  // BINUNICODE
                pushText(readBytes(readLength(4)), Value::Kind::String);
                break;
            case 0x8c:  // SHORT_BINUNICODE
                pushText(readBytes(readLength(1)), Value::Kind::String);
                break;
            case 0x8d:  // BINUNICODE8
                pushText(readBytes(readLength(8)), Value::Kind::String);
                break;
            case 'T':  // BINSTRING (Python 2 str)
                pushText(readBytes(readLength(4)), Value::Kind::String);
                break;
            case 'U':  // SHORT_BINSTRING
                pushText(readBytes(readLength(1)), Value::Kind::String);
                break;
            case 'B':  // BINBYTES
                pushText(readBytes(readLength(4)), Value::Kind::Bytes);
                break;
            case 'C':  // SHORT_BINBYTES
                pushText(readBytes(readLength(1)), Value::Kind::Bytes);
                break;
            case '}':
                pushNew(Value::Kind::Dict);
                break;
            case ']':
                pushNew(Value::Kind::List);
                break;
            case ')':
                pushNew(Value::Kind::Tuple);
                break;
            case 't':  // TUPLE
                tuple(popToMark());
                break;
            case 0x85:    // TUPLE1
            case 0x86:    // TUPLE2
            case 0x87: {  // TUPLE3
                std::vector<ValueId> items(opcode - 0x84);
                for (auto it = items.rbegin(); it != items.rend(); ++it) *it = pop();
                tuple(std::move(items));
                break;
            }
            case 'l': {  // LIST
                Value value;
                value.kind = Value::Kind::List;
                value.items = popToMark();
                push(make(std::move(value)));
                break;
            }
            case 'd': {  // DICT
                Value value;
                value.kind = Value::Kind::Dict;
                value.items = popToMark();
                if (value.items.size() % 2 != 0) fail("DICT with an odd number of items");
                push(make(std::move(value)));
                break;
            }
            case 'a': {  // APPEND
                const ValueId item = pop();
                appendItems("APPEND", Value::Kind::List, {item});
                break;
            }
            case 'e':  // APPENDS
                appendItems("APPENDS", Value::Kind::List, popToMark());
                break;
            case 's': {  // SETITEM
                const ValueId value = pop();
                const ValueId key = pop();
                appendItems("SETITEM", Value::Kind::Dict, {key, value});
                break;
            }
            case 'u':  // SETITEMS
                appendItems("SETITEMS", Value::Kind::Dict, popToMark());
                break;
            case 'q':  // BINPUT
                memoPut(readUnsigned(1));
                break;
            case 'r':  // LONG_BINPUT
                memoPut(readUnsigned(4));
                break;
            case 0x94:  // MEMOIZE
                memoPut(memo_.size());
                break;
            case 'h':  // BINGET
                memoGet(readUnsigned(1));
                break;
            case 'j':  // LONG_BINGET
                memoGet(readUnsigned(4));
                break;
            case 'c': {  // GLOBAL "module\nname\n"
                const std::string module = readLine();
                const std::string name = readLine();
                push(resolveGlobal(module, name));
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                const ValueId name = pop();
                const ValueId module = pop();
                const std::string moduleText = stringOf(module, "STACK_GLOBAL's module");
                const std::string nameText = stringOf(name, "STACK_GLOBAL's name");
                push(resolveGlobal(moduleText, nameText));
                break;
            }
            case 'R': {  // REDUCE
                const ValueId arguments = pop();
                const ValueId callable = pop();
                push(reduce(callable, arguments));
                break;
            }
            case 'b': {  // BUILD: object.__setstate__(state)
                const ValueId state = pop();
                if (stack_.empty()) fail("BUILD on an empty stack");
                const Value& target = arena_[stack_.back()];
                // An OrderedDict state dict carries its _metadata attribute this way; it says
                // which module version wrote each prefix and changes no tensor.
                if (target.kind != Value::Kind::Dict)
                    fail("refuses BUILD of a " + std::string(kindName(target.kind)) +
                         " (only a state dict's attributes are set this way)");
                const auto stateKind = arena_[state].kind;
                if (stateKind != Value::Kind::Dict && stateKind != Value::Kind::None && stateKind != Value::Kind::Tuple)
                    fail("BUILD with a " + std::string(kindName(stateKind)) + " for state");
                break;
            }
            case 'Q':  // BINPERSID
                push(persistentLoad(pop()));
                break;
            default: {
                constexpr std::array<std::pair<unsigned char, std::string_view>, 14> kNamed{{
                    {'i', "INST"},
                    {'o', "OBJ"},
                    {0x81, "NEWOBJ"},
                    {0x92, "NEWOBJ_EX"},
                    {'P', "PERSID"},
                    {'I', "INT"},
                    {'L', "LONG"},
                    {'S', "STRING"},
                    {'V', "UNICODE"},
                    {'F', "FLOAT"},
                    {0x82, "EXT1"},
                    {0x83, "EXT2"},
                    {0x84, "EXT4"},
                    {'2', "DUP"},
                }};
                std::string name = "0x";
                constexpr std::string_view kHex = "0123456789abcdef";
                name += kHex[opcode >> 4];
                name += kHex[opcode & 15];
                for (const auto& [code, text] : kNamed)
                    if (code == opcode) name = std::string(text) + " (" + name + ")";
                fail("refuses opcode " + name + ": not one a torch state dict uses");
            }
        }
    }
}

}  // namespace linkscope::encoder::pickle

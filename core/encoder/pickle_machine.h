#pragma once
// A restricted unpickler for what torch.save writes: it reads the opcodes of pickle protocols 2
// to 5 that a state dict uses and builds plain values from them. It never imports or calls
// anything. GLOBAL resolves only a closed list of names (torch's tensor-rebuilding functions,
// its *Storage classes and collections.OrderedDict); any other name is refused with the name
// it asked for, before anything else happens. REDUCE applies only those names, and only to the
// arguments torch writes. So a pickle that would run os.system in Python is an error here.
//
// The machine is iterative (no recursion on nesting), keeps every object in one arena (a
// pickle may make cycles through its memo: nothing is reference counted), and checks every
// declared length against the bytes left before allocating for it.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "encoder/safetensors.h"

namespace linkscope::encoder::pickle {

/// Where the pickle's bytes come from: a buffer, or a file read on demand (the legacy format
/// holds several pickles followed by raw storages).
class ByteInput {
public:
    virtual ~ByteInput() = default;
    /// Fills `into` completely or throws ParseError (the input ends first).
    virtual void read(std::span<std::byte> into) = 0;
    /// Bytes left after the current position.
    virtual std::uint64_t remaining() const = 0;
    /// Bytes consumed so far (for messages).
    virtual std::uint64_t position() const = 0;
};

/// A ByteInput over bytes in memory (not copied: they must outlive it).
class SpanInput final : public ByteInput {
public:
    SpanInput(std::span<const std::byte> bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}
    void read(std::span<std::byte> into) override;
    std::uint64_t remaining() const override { return bytes_.size() - at_; }
    std::uint64_t position() const override { return at_; }

private:
    std::span<const std::byte> bytes_;
    std::string name_;
    std::size_t at_ = 0;
};

/// The names GLOBAL may resolve.
enum class Global {
    OrderedDict,       ///< collections.OrderedDict
    RebuildTensorV2,   ///< torch._utils._rebuild_tensor_v2
    RebuildParameter,  ///< torch._utils._rebuild_parameter
    StorageClass,      ///< torch.FloatStorage, torch.HalfStorage ... (Value::dtype says which)
};

using ValueId = std::uint32_t;

/// A storage as a persistent id declares it: ('storage', torch.XStorage, key, location, numel)
/// in the zip format, with a sixth item (view_key, offset, view_numel) or None in the legacy one.
struct StorageUse {
    std::string key;              ///< the storage's key (the zip entry data/<key>, or the legacy key)
    DType dtype = DType::F32;     ///< from the storage class
    std::uint64_t numel = 0;      ///< elements of the whole storage
    std::uint64_t viewBegin = 0;  ///< legacy storage views: the first element this use sees
    std::uint64_t viewNumel = 0;  ///< and how many (numel, without a view)
};

/// What _rebuild_tensor_v2(storage, offset, size, stride, ...) declared.
struct TensorUse {
    std::size_t storage = 0;   ///< index into Machine::storages()
    std::uint64_t offset = 0;  ///< in elements, within the storage use's view
    std::vector<std::int64_t> sizes, strides;
};

struct Value {
    enum class Kind : std::uint8_t {
        None,
        Bool,
        Int,
        BigInt,
        Float,
        String,
        Bytes,
        Tuple,
        List,
        Dict,
        Global,
        Storage,
        Tensor
    };
    Kind kind = Kind::None;
    Global global = Global::OrderedDict;  ///< Kind::Global
    DType dtype = DType::F32;             ///< Kind::Global with Global::StorageClass
    std::int64_t integer = 0;             ///< Bool, Int; index into storages() / tensors()
    double real = 0;                      ///< Float
    std::string text;                     ///< String, Bytes, BigInt (little-endian two's complement)
    std::vector<ValueId> items;           ///< Tuple, List; Dict as key, value, key, value...
};

std::string_view kindName(Value::Kind kind) noexcept;

/// Runs one pickle, up to and including its STOP opcode.
class Machine {
public:
    /// `name` names the input in messages ("pytorch_model.bin (archive/data.pkl)").
    explicit Machine(std::string name) : name_(std::move(name)) {}

    /// Reads opcodes until STOP and returns the value left on the stack. Throws ParseError naming
    /// the input and the byte offset for a refused global or opcode, a REDUCE or BUILD of
    /// anything but the closed list, a malformed persistent id or tensor, a length beyond the
    /// input, and a pickle above the object limit.
    ValueId run(ByteInput& in);

    const Value& at(ValueId id) const { return arena_.at(id); }
    const std::vector<StorageUse>& storages() const noexcept { return storages_; }
    const std::vector<TensorUse>& tensors() const noexcept { return tensors_; }

    /// Objects one pickle may create: far above a state dict's (a few per tensor), and small
    /// enough that a hostile pickle cannot exhaust memory through them.
    static constexpr std::size_t kMaxObjects = std::size_t{1} << 22;

private:
    ValueId make(Value value);
    ValueId pop();
    std::vector<ValueId> popToMark();
    ValueId reduce(ValueId callable, ValueId arguments);
    ValueId persistentLoad(ValueId id);
    ValueId rebuildTensor(const Value& arguments);
    ValueId resolveGlobal(std::string_view module, std::string_view name);
    std::int64_t integerOf(ValueId id, std::string_view what) const;
    const std::string& stringOf(ValueId id, std::string_view what) const;
    [[noreturn]] void fail(const std::string& message) const;

    std::string name_;
    std::uint64_t opcodeAt_ = 0;
    std::vector<Value> arena_;
    std::vector<ValueId> stack_;
    std::vector<std::size_t> marks_;
    std::unordered_map<std::uint32_t, ValueId> memo_;
    std::vector<StorageUse> storages_;
    std::vector<TensorUse> tensors_;
};

}  // namespace linkscope::encoder::pickle

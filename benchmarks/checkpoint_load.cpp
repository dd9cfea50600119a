// Loading a BERT-base-size checkpoint (768 x 12 layers, 30,522 tokens, random weights) from
// model.safetensors and from its pytorch_model.bin twins (torch's zip format and the legacy
// one), all written by this benchmark: TextEncoder::load of each folder, page cache warm, the
// median of --runs loads. The .bin records are laid out as torch.save lays them out (one stored
// zip record, or one legacy storage, per tensor).
//
// Usage: checkpoint_load [--runs 5] [--dir DIR] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "../tests/common/torch_file_builder.h"
#include "encoder/safetensors.h"
#include "encoder/text_encoder.h"
#include "json_report.h"

using namespace linkscope;
using namespace linkscope::encoder;
namespace fs = std::filesystem;

namespace {

std::string storageClass(DType dtype) { return dtype == DType::F32 ? "FloatStorage" : "LongStorage"; }

/// The state dict pickle of `file`'s tensors, storage i holding tensor i.
std::string stateDictPickle(const SafetensorsFile& file, bool legacy) {
    test::PickleBuilder pickle;
    pickle.beginDict();
    std::size_t key = 0;
    for (const auto& tensor : file.tensors()) {
        std::vector<std::int64_t> strides(tensor.shape.size(), 1);
        for (std::size_t d = tensor.shape.size(); d-- > 1;) strides[d - 1] = strides[d] * tensor.shape[d];
        pickle.string(tensor.name)
            .tensor(storageClass(tensor.dtype), std::to_string(key++), static_cast<std::int64_t>(tensor.elementCount()),
                    0, tensor.shape, strides, legacy);
    }
    return pickle.endDict().stop().bytes();
}

void writeBytes(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void copyTokenizerFiles(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    for (const auto& entry : fs::directory_iterator(from))
        if (entry.path().extension() != ".safetensors")
            fs::copy_file(entry.path(), to / entry.path().filename(), fs::copy_options::overwrite_existing);
}

double secondsToLoad(const fs::path& folder, std::vector<float>& vector) {
    EncoderOptions options;
    options.device = DevicePreference::Cpu;
    const auto start = std::chrono::steady_clock::now();
    const auto encoder = TextEncoder::load(folder, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::vector<std::string> text = {"myocardial infarction"};
    vector = encoder.encode(text);
    return seconds;
}

}  // namespace

int main(int argc, char** argv) {
    bench::JsonReport report("checkpoint_load", argc, argv);
    std::size_t runs = 5;
    fs::path dir = fs::temp_directory_path() / "linkscope-checkpoint-load";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view flag = argv[i];
        if (flag == "--runs")
            runs = std::stoul(argv[i + 1]);
        else if (flag == "--dir")
            dir = argv[i + 1];
        else {
            std::fprintf(stderr, "usage: checkpoint_load [--runs 5] [--dir DIR] [--json]\n");
            return 2;
        }
    }
    report.parameters() = {{"runs", runs}, {"model", "BERT-base size, random weights, F32"}};

    const fs::path safe = dir / "safetensors", zip = dir / "bin-zip", legacy = dir / "bin-legacy";
    fs::remove_all(dir);
    {
        std::fprintf(stderr, "writing the BERT-base-size checkpoint and its .bin twins under %s\n", dir.c_str());
        std::vector<std::string> tokens = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
        for (std::size_t i = 0; tokens.size() < 30522; ++i) tokens.push_back("[unused" + std::to_string(i) + "]");
        EncoderOptions options;
        options.device = DevicePreference::Cpu;
        TextEncoder::create(BertConfig{}, BertTokenizer(Vocabulary::fromTokens(tokens), {}), 1, options).save(safe);
        const auto file = SafetensorsFile::read(safe / "model.safetensors");
        for (const bool isLegacy : {false, true}) {
            const fs::path folder = isLegacy ? legacy : zip;
            copyTokenizerFiles(safe, folder);
            if (!isLegacy) {
                std::vector<std::pair<std::string, std::string>> records = {
                    {"archive/data.pkl", stateDictPickle(file, false)}};
                std::size_t key = 0;
                for (const auto& tensor : file.tensors()) {
                    const auto bytes = file.bytes(tensor);
                    records.emplace_back("archive/data/" + std::to_string(key++),
                                         std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
                }
                records.emplace_back("archive/version", "3\n");
                writeBytes(folder / "pytorch_model.bin", test::storedZip(records));
            } else {
                std::vector<std::tuple<std::string, std::uint64_t, std::string>> storages;
                std::size_t key = 0;
                for (const auto& tensor : file.tensors()) {
                    const auto bytes = file.bytes(tensor);
                    storages.emplace_back(std::to_string(key++), tensor.elementCount(),
                                          std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
                }
                // torch sorts the keys as strings; so does the map-less list here, by name.
                std::sort(storages.begin(), storages.end());
                writeBytes(folder / "pytorch_model.bin", test::legacyTorchFile(stateDictPickle(file, true), storages));
            }
        }
    }

    struct Row {
        const char* name;
        fs::path folder;
        std::vector<double> seconds;
        std::vector<float> vector;
    };
    std::vector<Row> rows = {{"model.safetensors", safe, {}, {}},
                             {"pytorch_model.bin (zip)", zip, {}, {}},
                             {"pytorch_model.bin (legacy)", legacy, {}, {}}};
    for (auto& row : rows) secondsToLoad(row.folder, row.vector);  // warm the page cache
    for (std::size_t run = 0; run < runs; ++run)
        for (auto& row : rows) row.seconds.push_back(secondsToLoad(row.folder, row.vector));

    auto& table = report.figures()["loads"] = nlohmann::ordered_json::array();
    for (auto& row : rows) {
        std::sort(row.seconds.begin(), row.seconds.end());
        const double median = row.seconds[row.seconds.size() / 2];
        const bool same =
            row.vector.size() == rows.front().vector.size() &&
            std::memcmp(row.vector.data(), rows.front().vector.data(), row.vector.size() * sizeof(float)) == 0;
        std::printf("%-28s %8.3f s median of %zu (%s)  bytes %ju\n", row.name, median, runs,
                    same ? "same vector" : "VECTOR DIFFERS",
                    static_cast<std::uintmax_t>(
                        fs::file_size(row.folder / (row.folder == safe ? "model.safetensors" : "pytorch_model.bin"))));
        table.push_back({{"weights", row.name}, {"median_seconds", median}, {"same_vector", same}});
    }
    fs::remove_all(dir);
    return 0;
}

#include "encoder_options.h"

#include <CLI/CLI.hpp>

#include "util/error.h"

namespace linkscope::cli {

CLI::Option* EncoderArguments::addOptions(CLI::App& cmd, bool modelRequired, std::size_t defaultMaxLength) {
    maxLength = defaultMaxLength;
    CLI::Option* option = cmd.add_option("--model", model,
                                         "Encoder: a Hugging Face checkpoint folder, bert or xlm-roberta (config.json; "
                                         "vocab.txt, tokenizer.json or sentencepiece.bpe.model; model.safetensors or "
                                         "pytorch_model.bin, either serialization, or their sharded index), or a run "
                                         "folder")
                              ->check(CLI::ExistingDirectory);
    if (modelRequired) option->required();
    cmd.add_option("--pooling", pooling,
                   "cls, mean, markers ([S]/[E]) or start-end ([START]/[END]); default: the model's")
        ->check(CLI::IsMember({"cls", "mean", "markers", "start-end"}));
    cmd.add_option("--max-length", maxLength, "Tokens per text, [CLS] and [SEP] included")->capture_default_str();
    cmd.add_option("--batch-size", batchSize, "Texts per forward pass")->capture_default_str();
    cmd.add_option("--device", device, "auto (CUDA when available), cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}));
    cmd.add_option("--precision", precision, "fp32, or fp16 / bf16 on CUDA")
        ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
    cmd.add_flag("--normalize", normalize, "L2-normalize the vectors (cosine similarity)");
    return option;
}

encoder::EncoderOptions EncoderArguments::options() const {
    encoder::EncoderOptions options;
    if (!pooling.empty()) options.pooling = encoder::parsePooling(pooling);
    if (maxLength < 2) throw Error("--max-length must be at least 2 ([CLS] and [SEP])");
    if (batchSize == 0) throw Error("--batch-size must be at least 1");
    options.maxLength = maxLength;
    options.batchSize = batchSize;
    options.device = device == "cpu"    ? encoder::DevicePreference::Cpu
                     : device == "cuda" ? encoder::DevicePreference::Cuda
                                        : encoder::DevicePreference::Auto;
    options.precision = precision == "fp16"   ? encoder::Precision::Fp16
                        : precision == "bf16" ? encoder::Precision::Bf16
                                              : encoder::Precision::Fp32;
    options.normalize = normalize;
    return options;
}

void DenseIndexArguments::addOptions(CLI::App& cmd) {
    cmd.add_option("--dense-index", file,
                   "Dense index file: loaded when it exists (and was built by this model for this dictionary), else "
                   "built and saved");
    cmd.add_option("--dense-kind", kind, "flat (exact inner product, as the papers), hnsw or ivf-pq")
        ->check(CLI::IsMember({"flat", "hnsw", "ivf-pq"}));
    cmd.add_option("--ef-search", efSearch, "HNSW: candidates explored per query")->capture_default_str();
    cmd.add_option("--probes", probes, "IVF-PQ: inverted lists visited per query")->capture_default_str();
}

retrieval::DenseIndexOptions DenseIndexArguments::options() const {
    retrieval::DenseIndexOptions options;
    options.kind = kind == "hnsw"     ? retrieval::DenseIndexKind::Hnsw
                   : kind == "ivf-pq" ? retrieval::DenseIndexKind::IvfPq
                                      : retrieval::DenseIndexKind::Flat;
    options.hnswEfSearch = efSearch;
    options.ivfProbes = probes;
    return options;
}

}  // namespace linkscope::cli

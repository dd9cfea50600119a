#!/usr/bin/python3
"""References for the XLM-RoBERTa tests, written without Linkscope's code: SentencePiece's own
token ids (Debian's python3-sentencepiece) under fairseq's id mapping, and a numpy forward pass
of a small random XLM-RoBERTa saved as Hugging Face writes one (config.json, model.safetensors).

  xlmr_reference.py tokenizer DIR
      trains a small Unigram model on multilingual medical text it writes, and writes
      DIR/sentencepiece.bpe.model, DIR/lines.txt (1,000 lines: German, Spanish and French terms
      with accents, Cyrillic, Greek, CJK, characters the model never saw) and DIR/ids.txt (the
      ids of each line as XLMRobertaTokenizer gives them: <s> ... </s>, untruncated) and
      DIR/ids-8.txt (truncated to 8 tokens, </s> kept).
  xlmr_reference.py model DIR LINES PREFIX
      with DIR/sentencepiece.bpe.model present, writes a random XLM-R (tensor names prefixed
      with PREFIX, "" or "roberta.", plus an lm_head with the prefix) and DIR/cls.txt and
      DIR/mean.txt: the <s> vector and the mean of the token outputs of each line of LINES,
      each line run alone (no padding), truncated to 24 tokens.
  xlmr_reference.py corpus DIR
      writes a small German corpus (PubTator) and KB (MEDIC-style TSV) whose names the
      tokenizer of DIR is trained on, for the command-line tests.
"""
import json
import math
import os
import random
import struct
import sys

import numpy as np
import sentencepiece as spm

GERMAN = ["Herzinfarkt", "Lungenentzündung", "Bauchspeicheldrüsenkrebs", "Schilddrüsenüberfunktion",
          "Zuckerkrankheit", "Blutgerinnsel", "Gehirnerschütterung", "Magengeschwür", "Nierenversagen",
          "Bluthochdruck", "Gelbsucht", "Masern", "Röteln", "Windpocken", "Schlaganfall", "Übelkeit",
          "Hörsturz", "Knochenbruch", "Muskelschwäche", "Gedächtnisstörung"]
SPANISH = ["infarto de miocardio", "neumonía", "cáncer de páncreas", "hipertensión arterial", "diabetes",
           "insuficiencia renal", "úlcera gástrica", "sarampión", "accidente cerebrovascular", "ictericia",
           "inflamación", "corazón", "pulmón", "niño con fiebre", "dolor de cabeza"]
FRENCH = ["infarctus du myocarde", "pneumonie", "cancer du pancréas", "hypertension artérielle",
          "insuffisance rénale", "ulcère gastrique", "rougeole", "accident vasculaire cérébral", "ictère",
          "œdème pulmonaire", "maladie cœliaque", "fièvre", "céphalée", "sclérose en plaques", "crâne"]
RUSSIAN = ["инфаркт миокарда", "пневмония", "рак поджелудочной железы", "гипертония", "сахарный диабет",
           "почечная недостаточность", "язва желудка", "корь", "инсульт", "желтуха", "ёмкость лёгких"]
GREEK = ["έμφραγμα του μυοκαρδίου", "πνευμονία", "καρκίνος του παγκρέατος", "υπέρταση", "διαβήτης",
         "νεφρική ανεπάρκεια", "έλκος στομάχου", "ιλαρά", "εγκεφαλικό", "ίκτερος", "Ψύχωση"]
CJK = ["心肌梗死", "肺炎", "胰腺癌", "高血压", "糖尿病", "肾衰竭", "胃溃疡", "麻疹", "脑卒中", "黄疸",
       "心筋梗塞", "肺がん", "糖尿病性腎症", "고혈압", "당뇨병"]
# Never in the training text: the model maps them to <unk> (fairseq id 3) or splits them.
UNSEEN = ["☃", "𝔘𝔫𝔰𝔢𝔢𝔫", "ሰላም", "עברית", "ﬁbrose", "ＡＢＣ", "①②", "Ǆ", "\u00a0Spitze", "e\u0301tat"]
EXTRA = ["BRCA1", "p53", "COVID-19", "IL-6", "TNF-α", "β-Blocker", "5-HT", "(akut)", "Typ 2", "3,5 mg/kg"]


def training_text():
    rng = random.Random(7)
    words = GERMAN + SPANISH + FRENCH + RUSSIAN + GREEK + CJK + EXTRA
    lines = []
    for _ in range(4000):
        lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(1, 5))))
    return lines


def test_lines():
    rng = random.Random(11)
    groups = [GERMAN, SPANISH, FRENCH, RUSSIAN, GREEK, CJK, UNSEEN, EXTRA]
    lines = []
    while len(lines) < 1000:
        parts = []
        for _ in range(rng.randint(1, 4)):
            parts.append(rng.choice(rng.choice(groups)))
        separator = rng.choice([" ", " ", " ", "  ", ", ", "-", "\t", "/"])
        line = separator.join(parts)
        if rng.random() < 0.15:
            line = line.upper() if rng.random() < 0.5 else line.capitalize()
        if rng.random() < 0.05:
            line = " " + line + "  "
        lines.append(line)
    # Every group alone once, and a few edge cases: an empty line, punctuation only.
    for group in groups:
        lines[len(lines) - 1 - groups.index(group)] = " ".join(group[:3])
    lines[0] = ""
    lines[1] = "..."
    return lines


def fairseq_ids(sp, text):
    """XLMRobertaTokenizer's ids: SentencePiece id + 1, its <unk> (0) at fairseq's <unk> (3)."""
    return [3 if i == 0 else i + 1 for i in sp.encode(text)]


def framed(pieces, max_length=None):
    if max_length is not None:
        pieces = pieces[:max_length - 2]
    return [0] + pieces + [2]


def write_tokenizer(out):
    os.makedirs(out, exist_ok=True)
    corpus = os.path.join(out, "train.txt")
    with open(corpus, "w", encoding="utf-8") as f:
        f.write("\n".join(training_text()) + "\n")
    prefix = os.path.join(out, "spm")
    spm.SentencePieceTrainer.train(input=corpus, model_prefix=prefix, model_type="unigram", vocab_size=400, hard_vocab_limit=False,
                                   character_coverage=1.0, num_threads=1, minloglevel=2)
    os.replace(prefix + ".model", os.path.join(out, "sentencepiece.bpe.model"))
    os.remove(prefix + ".vocab")
    os.remove(corpus)
    sp = spm.SentencePieceProcessor(model_file=os.path.join(out, "sentencepiece.bpe.model"))
    lines = test_lines()
    with open(os.path.join(out, "lines.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    for name, limit in (("ids.txt", None), ("ids-8.txt", 8)):
        with open(os.path.join(out, name), "w") as f:
            for line in lines:
                f.write(" ".join(map(str, framed(fairseq_ids(sp, line), limit))) + "\n")


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


ERF = np.vectorize(math.erf)


def gelu(x):
    return 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0)))


def forward(w, config, ids):
    """XLM-RoBERTa, eval mode, one unpadded text: its last hidden state [T, H], in float64."""
    pad = config["pad_token_id"]
    eps = config["layer_norm_eps"]
    positions = np.arange(len(ids)) + pad + 1  # no padding: every token counts
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][positions] \
        + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    heads = config["num_attention_heads"]
    size = config["hidden_size"] // heads
    for layer in range(config["num_hidden_layers"]):
        p = "encoder.layer.%d." % layer

        def linear(name, value):
            return value @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        def split(value):
            return value.reshape(len(ids), heads, size).transpose(1, 0, 2)

        q, k, v = (split(linear("attention.self." + n, x)) for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probabilities = scores / scores.sum(-1, keepdims=True)
        context = (probabilities @ v).transpose(1, 0, 2).reshape(len(ids), heads * size)
        attended = layer_norm(linear("attention.output.dense", context) + x,
                              w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], eps)
        inner = gelu(linear("intermediate.dense", attended))
        x = layer_norm(linear("output.dense", inner) + attended, w[p + "output.LayerNorm.weight"],
                       w[p + "output.LayerNorm.bias"], eps)
    return x


def write_safetensors(path, tensors):
    header = {}
    offset = 0
    blobs = []
    for name, value in tensors.items():
        data = np.ascontiguousarray(value, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def write_model(out, lines_file, prefix):
    sp = spm.SentencePieceProcessor(model_file=os.path.join(out, "sentencepiece.bpe.model"))
    config = {"architectures": ["XLMRobertaModel"], "model_type": "xlm-roberta", "vocab_size": sp.get_piece_size() + 2,
              "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64,
              "max_position_embeddings": 34, "type_vocab_size": 1, "pad_token_id": 1, "bos_token_id": 0,
              "eos_token_id": 2, "layer_norm_eps": 1e-5, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
              "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02, "position_embedding_type": "absolute"}
    rng = np.random.default_rng(5)
    hidden, inner = config["hidden_size"], config["intermediate_size"]
    shapes = {"embeddings.word_embeddings.weight": (config["vocab_size"], hidden),
              "embeddings.position_embeddings.weight": (config["max_position_embeddings"], hidden),
              "embeddings.token_type_embeddings.weight": (1, hidden),
              "embeddings.LayerNorm.weight": (hidden,), "embeddings.LayerNorm.bias": (hidden,)}
    for layer in range(config["num_hidden_layers"]):
        p = "encoder.layer.%d." % layer
        for name in ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"):
            shapes[p + name + ".weight"] = (hidden, hidden)
            shapes[p + name + ".bias"] = (hidden,)
        shapes[p + "intermediate.dense.weight"] = (inner, hidden)
        shapes[p + "intermediate.dense.bias"] = (inner,)
        shapes[p + "output.dense.weight"] = (hidden, inner)
        shapes[p + "output.dense.bias"] = (hidden,)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[p + norm + ".weight"] = (hidden,)
            shapes[p + norm + ".bias"] = (hidden,)
    shapes["pooler.dense.weight"] = (hidden, hidden)
    shapes["pooler.dense.bias"] = (hidden,)
    weights = {}
    for name, shape in shapes.items():
        if name.endswith("LayerNorm.weight"):
            value = 1.0 + 0.1 * rng.standard_normal(shape)
        else:
            value = 0.3 * rng.standard_normal(shape)
        weights[name] = value.astype(np.float32)
    stored = {prefix + name: value for name, value in weights.items()}
    if prefix:  # XLMRobertaForMaskedLM's head, which an encoder skips
        stored["lm_head.dense.weight"] = rng.standard_normal((hidden, hidden)).astype(np.float32)
        stored["lm_head.bias"] = rng.standard_normal((config["vocab_size"],)).astype(np.float32)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    write_safetensors(os.path.join(out, "model.safetensors"), stored)

    as64 = {name: value.astype(np.float64) for name, value in weights.items()}
    with open(lines_file, encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]
    with open(os.path.join(out, "cls.txt"), "w") as cls, open(os.path.join(out, "mean.txt"), "w") as mean:
        for line in lines:
            states = forward(as64, config, framed(fairseq_ids(sp, line), 24))
            cls.write(" ".join("%.9g" % v for v in states[0]) + "\n")
            mean.write(" ".join("%.9g" % v for v in states.mean(0)) + "\n")


# The command-line tests' data: German disease names under MeSH-like ids, each with a synonym.
KB = [("D009001", "Herzinfarkt", "Myokardinfarkt"), ("D009002", "Lungenentzündung", "Pneumonie"),
      ("D009003", "Bauchspeicheldrüsenkrebs", "Pankreaskarzinom"), ("D009004", "Schilddrüsenüberfunktion", "Hyperthyreose"),
      ("D009005", "Zuckerkrankheit", "Diabetes mellitus"), ("D009006", "Blutgerinnsel", "Thrombose"),
      ("D009007", "Gehirnerschütterung", "Commotio cerebri"), ("D009008", "Magengeschwür", "Ulcus ventriculi"),
      ("D009009", "Nierenversagen", "Niereninsuffizienz"), ("D009010", "Bluthochdruck", "Hypertonie"),
      ("D009011", "Gelbsucht", "Ikterus"), ("D009012", "Masern", "Morbilli"), ("D009013", "Röteln", "Rubella"),
      ("D009014", "Windpocken", "Varizellen"), ("D009015", "Schlaganfall", "Hirninfarkt"), ("D009016", "Hörsturz", "Ohrinfarkt")]
SENTENCES = ["Der Patient litt an {}.", "Bei der Frau wurde {} festgestellt.", "{} trat nach der Operation auf.",
             "Wir beobachteten {} bei zwei Kindern."]


def write_corpus(out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "kb.tsv"), "w", encoding="utf-8") as f:
        f.write("# Fields:\n# DiseaseName\tDiseaseID\tAltDiseaseIDs\tDefinition\tParentIDs\tTreeNumbers\tParentTreeNumbers"
                "\tSynonyms\tSlimMappings\n")
        for identifier, name, synonym in KB:
            f.write("%s\tMESH:%s\t\t\t\t\t\t%s\t\n" % (name, identifier, synonym))
    rng = random.Random(3)
    for split, count in (("train", 16), ("dev", 8), ("test", 16)):
        with open(os.path.join(out, split + ".txt"), "w", encoding="utf-8") as f:
            for d in range(count):
                identifier, name, synonym = KB[(d * 5 + len(split)) % len(KB)]
                mention = name if split == "test" or rng.random() < 0.5 else synonym
                title = "Fallbericht %d" % (d + 1)
                text = rng.choice(SENTENCES).format(mention)
                document = "%d" % (1000 * len(split) + d)
                start = len(title) + 1 + text.index(mention)
                f.write("%s|t|%s\n%s|a|%s\n" % (document, title, document, text))
                f.write("%s\t%d\t%d\t%s\tDiseaseClass\t%s\n\n" % (document, start, start + len(mention), mention,
                                                                  identifier))
    words = [w for entry in KB for w in entry[1:]] + [s.format("") for s in SENTENCES]
    text = os.path.join(out, "spm.txt")
    with open(text, "w", encoding="utf-8") as f:
        f.write("\n".join(words * 4) + "\n")
    spm.SentencePieceTrainer.train(input=text, model_prefix=os.path.join(out, "spm"), model_type="unigram",
                                   vocab_size=200, hard_vocab_limit=False, character_coverage=1.0, num_threads=1, minloglevel=2)
    os.replace(os.path.join(out, "spm.model"), os.path.join(out, "sentencepiece.bpe.model"))
    for name in ("spm.vocab", "spm.txt"):
        os.remove(os.path.join(out, name))


if __name__ == "__main__":
    if sys.argv[1] == "tokenizer":
        write_tokenizer(sys.argv[2])
    elif sys.argv[1] == "model":
        write_model(sys.argv[2], sys.argv[3], sys.argv[4])
    elif sys.argv[1] == "corpus":
        write_corpus(sys.argv[2])
    else:
        sys.exit("unknown command " + sys.argv[1])

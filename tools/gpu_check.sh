#!/bin/bash
# The GPU machine's check, run there from the repository root with .devdeps/ (tools/gpu_bundle.sh)
# and results-runs/medic-sap/model carried: builds core, linkscope-cli and dense_scale against that
# machine's Python torch (CUDA); shows whether that LibTorch exports its own std::filesystem
# (pytorch#133437) and which libstdc++ the CLI binds first; trains belhd's short-pretrained schedule
# on CUDA from the pretrained encoder and evaluates the run on CUDA and on the CPU; meanwhile
# generate_umls_medmentions.py writes the UMLS-size data, and dense_scale then encodes all of its
# dictionary's names on CUDA into the IVF-fp16 index (DENSE_LIMIT=N: the first N names only).
# Logs and reports go to $OUT (the device tool's folder).
#   BUILD_TYPE=RelWithDebInfo DEBUG_CRASH=1 ...: instead, run the training under cuda-gdb and
#   print where it stops. PROBE=1 ...: instead, train once and list what the run folder holds
#   after it ends (how far the trainer got). PRETRAIN=1 ...: instead, pretrain on CUDA with the
#   masked-LM stage first (NCBI Disease's training abstracts), as far as 300 s allow. PRESETS=1
#   ...: instead, train every preset's short-pretrained schedule on CUDA from the pretrained
#   encoder and evaluate each on NCBI Disease test, each within 100 s (PRESETS_ONLY="a b": those).
set -o pipefail
OUT=${OUT:-/tmp/gpu-check}; mkdir -p "$OUT"
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
D=$PWD/.devdeps/data
# The UMLS-size data takes minutes of one core: written beside the build and the training.
if [ -z "$PROBE$DEBUG_CRASH$PRETRAIN$PRESETS" ]; then
  PYTHONUNBUFFERED=1 python3 benchmarks/generate_umls_medmentions.py --out /tmp/umls-mm \
    --vocabulary $D/medic_06Jul2012.txt --splits $D/medmentions-splits > $OUT/generate.log 2>&1 &
  generator=$!
fi
mkdir -p /tmp/deps && tar -xJf .devdeps/deps.tar.xz -C /tmp/deps || exit 2
L=/tmp/deps/usr/lib/x86_64-linux-gnu
[ -f .devdeps/libpugixml.a ] && cp .devdeps/libpugixml.a $L/  # bookworm ships it in libpugixml-dev; an older bundle lacks it
# FAISS's CMake targets name /usr/lib/x86_64-linux-gnu/lib{blas,lapack}.so: OpenBLAS stands in.
for n in blas lapack; do [ -e /usr/lib/x86_64-linux-gnu/lib$n.so ] || ln -s $L/openblas-pthread/lib$n.so.3 /usr/lib/x86_64-linux-gnu/lib$n.so; done
z=$(ls /lib/x86_64-linux-gnu/libz.so.1 /usr/lib/x86_64-linux-gnu/libz.so.1 2>/dev/null | head -1)
ln -sf "$z" $L/libz.so  # Debian's libz.so names bookworm's libz.so.1.2.13
export LD_LIBRARY_PATH=$L:$L/openblas-pthread:$LD_LIBRARY_PATH
TIME=(); [ -x /usr/bin/time ] && TIME=(/usr/bin/time -v)
TP=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; g++ --version | head -1; cmake --version | head -1
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'; nproc; grep MemTotal /proc/meminfo
  head -1 /etc/os-release; } 2>&1 | tee $OUT/machine.txt
B=/tmp/linkscope-gpu-build
cmake -S . -B $B -G Ninja -DCMAKE_CXX_COMPILER=${CXX_FOR_BUILD:-g++} -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-Release} \
  -DLINKSCOPE_BUILD_UI=OFF -DLINKSCOPE_BUILD_TESTS=OFF -DLINKSCOPE_BUILD_BENCHMARKS=ON \
  -DCMAKE_PREFIX_PATH="$TP;/tmp/deps/usr" -DICU_ROOT=/tmp/deps/usr -DZLIB_ROOT=/tmp/deps/usr > $OUT/cmake.log 2>&1
grep -q "LibTorch .* and FAISS found" $OUT/cmake.log || { tail -40 $OUT/cmake.log; exit 3; }
echo "configured at $(elapsed) s"
ninja -C $B -k 0 linkscope-cli $([ -z "$PROBE$DEBUG_CRASH$PRETRAIN$PRESETS" ] && echo dense_scale) > $OUT/build.log 2>&1 || { grep -B2 -A12 "error" $OUT/build.log | head -150; exit 4; }
echo "built at $(elapsed) s"
CLI=$B/bin/linkscope-cli
TL=$(python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))')/lib
echo "std::filesystem symbols libtorch_cpu.so defines: $(nm -D --defined-only $TL/libtorch_cpu.so | c++filt | grep -c 'std::filesystem')"
echo "linkscope-cli's first needed libraries: $(readelf -d $CLI | grep NEEDED | head -3 | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
NCBI=(--train $D/NCBItrainset_corpus.txt --dev $D/NCBIdevelopset_corpus.txt --kb $D/medic_06Jul2012.txt --spelling $D/ncbi-spell-check.txt)
rm -rf /tmp/linkscope-gpu-runs
R=/tmp/linkscope-gpu-runs
if [ -n "$PROBE" ]; then
  $CLI train --preset belhd --schedule short-pretrained --model results-runs/medic-sap/model "${NCBI[@]}" \
    --device cuda --out $R/probe > $OUT/probe.log 2>&1
  echo "train exit $?"; grep -v "^progress" $OUT/probe.log | tail -5; tail -3 $OUT/probe.log
  find $R/probe -printf '%p %s\n' | sort; cat $R/probe/log.jsonl 2>/dev/null | head -5
  exit 0
fi
if [ -n "$PRESETS" ]; then
  for p in ${PRESETS_ONLY:-biosyn triplet prototype-srn belhd knn-bioel}; do
    s=short-pretrained; grep -q '"short-pretrained"' models/$p.json || s=short  # the schedule from the pretrained start
    timeout 100 $CLI train --preset $p --schedule $s --model results-runs/medic-sap/model "${NCBI[@]}" \
      --device cuda --out $R/$p > $OUT/train-$p.log 2>&1
    echo "$p: train exit $? at $(elapsed) s; $(grep "wall time\|collapsed" $OUT/train-$p.log | head -2 | tr '\n' ' ')"
    $CLI eval --run $R/$p "${NCBI[@]}" --test $D/NCBItestset_corpus.txt --split test --device cuda 2>&1 | grep "^all"
  done
  exit 0
fi
if [ -n "$PRETRAIN" ]; then
  timeout 300 "${TIME[@]}" $CLI pretrain --kb $D/medic_06Jul2012.txt --dev $D/NCBIdevelopset_corpus.txt \
    --spelling $D/ncbi-spell-check.txt --mlm-corpus $D/NCBItrainset_corpus.txt --schedule short --device cuda \
    --out $R/sap > $OUT/pretrain.log 2>&1
  echo "pretrain exit $? after $(elapsed) s"; grep -v "^progress" $OUT/pretrain.log | tail -40; grep "^progress" $OUT/pretrain.log | tail -3
  find $R/sap -maxdepth 2 | sort | head -30
  exit 0
fi
if [ -n "$DEBUG_CRASH" ]; then
  G=$(command -v cuda-gdb || ls /usr/local/cuda*/bin/cuda-gdb 2>/dev/null | head -1)
  timeout 200 $G -batch -ex "set pagination off" -ex run -ex "x/a \$sp" -ex "set \$pc = *(long*)\$sp" -ex "set \$sp = \$sp + 8" \
    -ex "bt 30" --args $CLI train --preset belhd --schedule short-pretrained --model results-runs/medic-sap/model "${NCBI[@]}" \
    --device cuda --out $R/debug > $OUT/gdb.log 2>&1
  grep -v "^progress\|New Thread\|Thread .* exited" $OUT/gdb.log | tail -80
  exit 0
fi
timeout 240 "${TIME[@]}" $CLI train --preset belhd --schedule short-pretrained --model results-runs/medic-sap/model "${NCBI[@]}" \
  --device cuda --out $R/belhd > $OUT/train-belhd.log 2>&1
echo "train exit $?"; grep -v "^progress" $OUT/train-belhd.log | tail -25; cp $R/belhd/run.json $OUT/run-belhd.json 2>/dev/null
echo "trained at $(elapsed) s"
for dev in cuda cpu; do
  "${TIME[@]}" $CLI eval --run $R/belhd "${NCBI[@]}" --test $D/NCBItestset_corpus.txt --split test --device $dev \
    --report $OUT/eval-belhd-$dev.json > $OUT/eval-belhd-$dev.log 2>&1
  grep -i "^all\|^run\|elapsed\|maximum resident" $OUT/eval-belhd-$dev.log | head -6
done
echo "evaluated at $(elapsed) s"
wait $generator; echo "generator exit $? at $(elapsed) s"; tail -3 $OUT/generate.log
left=$(( 570 - $(elapsed) ))
"${TIME[@]}" timeout $left stdbuf -oL $B/bin/dense_scale --dir /tmp/umls-mm --model results-runs/medic-sap/model \
  ${DENSE_LIMIT:+--limit $DENSE_LIMIT} --sample 500 > $OUT/dense_scale.log 2> $OUT/dense_scale.err
echo "dense_scale exit $? at $(elapsed) s"; cat $OUT/dense_scale.log; tr '\r' '\n' < $OUT/dense_scale.err | grep -v "^encoded" | tail -25
tr '\r' '\n' < $OUT/dense_scale.err | grep "^encoded" | tail -1

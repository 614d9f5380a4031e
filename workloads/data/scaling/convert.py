#!/usr/bin/env python3
"""Transcribed published throughput tables (ORIGIN.md names each source, file and commit) -> gpus,nodes,global_batch,step_seconds (ringsched fit --csv input).
step_seconds = global_batch / throughput (samples/s) unless noted. Only collection and conversion: no fitting."""
import math, os
HERE = os.path.dirname(os.path.abspath(__file__))

def write(name, rows, gpn, sub=""):
    """rows: (gpus, global_batch, samples_per_second[, nodes])"""
    d = os.path.join(HERE, sub) if sub else HERE
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".csv"), "w") as f:
        f.write("gpus,nodes,global_batch,step_seconds\n")
        for r in rows:
            g, gb, thr = r[0], r[1], r[2]
            n = r[3] if len(r) > 3 else math.ceil(g / gpn)
            f.write(f"{g},{n},{gb},{gb / thr:.6g}\n")

TABLES = {}

# ---------------------------------------------------------------------------------------------------------------
# NVIDIA/DeepLearningExamples @ 729963dd47e7c8bd462ad10bfac7a7b0b604e6dd  (DGX A100 80GB: 8 GPUs/node)
# Throughput in sequences/s; fixed global batch within the multi-node table (gradient accumulation shrinks with
# nodes); the 1-GPU row comes from the single-node table of the same README section (same container, same
# micro-batch; its global batch = 1 GPU x accumulated batch/GPU).
# PyTorch/LanguageModeling/BERT/README.md, BERT-large pretraining, mixed precision, micro-batch 256 (ph1) / 32 (ph2)
write("dle-pyt-bert-large-ph1-a100-fp16", [
    (1, 8192, 580),                     # single-node table: 1 GPU, accumulated batch/GPU 8192
    (8, 65536, 4553), (16, 65536, 9191), (32, 65536, 18119), (64, 65536, 35774),
    (128, 65536, 70555), (256, 65536, 138294)], 8)
write("dle-pyt-bert-large-ph2-a100-fp16", [
    (1, 4096, 210),
    (8, 32768, 1648), (16, 32768, 3291), (32, 32768, 6464), (64, 32768, 13005),
    (128, 32768, 25570), (256, 32768, 49663)], 8)
# PaddlePaddle/LanguageModeling/BERT/README.md, BERT-large pretraining, mixed precision, micro-batch 256 / 32
write("dle-paddle-bert-large-ph1-a100-fp16", [
    (1, 8192, 694),
    (8, 65536, 5541), (16, 65536, 10646), (32, 65536, 21389), (64, 65536, 41681),
    (128, 65536, 79023), (256, 65536, 157952)], 8)
write("dle-paddle-bert-large-ph2-a100-fp16", [
    (1, 4096, 264),
    (8, 32768, 2109), (16, 32768, 4051), (32, 32768, 7972), (64, 32768, 15760),
    (128, 32768, 31129), (256, 32768, 60206)], 8)
# TensorFlow2/LanguageModeling/BERT/README.md, BERT-large pretraining (LAMB), mixed precision, micro-batch 312 / 40;
# global batch 79872 (ph1) and 30720 (ph2) in every row, 1 GPU included.
write("dle-tf2-bert-large-ph1-a100-fp16", [
    (1, 79872, 485.59),
    (8, 79872, 3803.82), (16, 79872, 7551.37), (64, 79872, 29711.11), (256, 79872, 110280.73)], 8)
write("dle-tf2-bert-large-ph2-a100-fp16", [
    (1, 30720, 96.52),
    (8, 30720, 749.73), (16, 30720, 1491.87), (64, 30720, 5870.83), (256, 30720, 22506.23)], 8)
# PyTorch/LanguageModeling/Transformer-XL/README.md, "Training performance: 8x NVIDIA DGX-2H (16x V100 32GB)",
# large model, LOCAL_BATCH_SIZE=4 sequences of tgt_len 384 tokens, no accumulation (trainbench_multinode config sets
# global batch = 4 x world size). Throughput in tokens/s -> sequences/s = tok/s / 384. 16 GPUs/node.
TGT = 384
def txl(rows):
    return [(g, 4 * g, tok / TGT) for g, tok in rows]
write("dle-pyt-txl-large-dgx2h-fp16", txl([(16, 154950), (32, 307520), (64, 605530), (128, 1189700)]), 16)
write("dle-pyt-txl-large-dgx2h-fp32", txl([(16, 69070), (32, 136960), (64, 270120), (128, 514500)]), 16)

# ---------------------------------------------------------------------------------------------------------------
# pkusys/ElasticFlow @ 04a0109a6acdd7d89f4cb31b6a6a7a128bee6bb0, ElasticFlow/scheduler/throughputs_A100/<model>.csv
# Rows = global batch, columns = GPU count (1..64), value = iterations/s measured by
# ElasticFlow/elastic-training-executor/trainer.py (iter_count / elapsed), local batch = global / GPUs.
# Testbed: Azure Standard_ND96asr_v4 VMs (8x A100 40GB, 8x 200 Gb/s HDR IB). step_seconds = 1 / (iter/s).
EF = {
 "resnet50": {64: [6.8429775823889685, 11.838468717843664, 18.298925886403232, 21.265357623184627, 21.509686255706676, 22.749826545597376, 20.969147690424624],
              128: [3.6553729658054332, 6.619528678370847, 11.224201427896464, 16.53414011075494, 20.15564728008105, 20.291015806510305, 21.070922780581487],
              256: [1.843374951404324, 3.4486157956111083, 6.190812304854656, 10.378702644353233, 15.152685112995107, 17.82257337691743, 18.845304488737906]},
 "vgg16": {64: [5.053019147087227, 9.03564356887826, 14.755024126128259, 19.3298561900258, 25.893313206250053, 30.555726268627115, 29.533561001760987],
           128: [2.6247764189255065, 4.873619474205853, 8.720751494818506, 13.573026788365198, 18.05975694586296, 23.615372405335012, 25.78250120819821],
           256: [1.313656050830868, 2.5226867651439044, 4.641866203603871, 7.996428170165415, 12.621757731334574, 16.371782301648295, 20.655522724924108]},
 "inception3": {64: [4.820647821167875, 8.190056333271595, 11.693206462893698, 13.3925276338322, 13.693445500445776, 13.687483604927628, 13.054794859813414],
                128: [2.5622998204792498, 4.659288837258833, 7.803612731191226, 10.854223213959367, 12.797189523477574, 12.843506437370086, 12.340736115251653]},
 "gpt2": {128: [7.3088357107474415, 11.945927661457464, 16.66628395476673, 18.70365969793693, 19.87490782735775, 18.599019100708844, 16.646457925030372],
          256: [4.097335755464108, 6.959745416783202, 11.440484512832432, 15.655515890223365, 17.872310108324317, 18.85539353465517, 15.643551205195918]},
 "bert": {64: [6.030661553957379, 8.643477263279834, 10.356284859349557, 11.0601732061343, 10.98694501596299, 10.608287752374963, 9.24585886691227],
          128: [3.5749256045333064, 5.679410396897942, 8.45093362704855, 9.994239610576015, 10.767556247473081, 10.710391586460846, 9.444560197972908]},
 "deepspeech2": {32: [3.0231577845960493, 5.3658588170062025, 7.543931899743629, 9.816143156381461, 12.883174083266885, 14.461504733734241, None],
                 64: [1.5999193993421348, 2.9614780247610133, 5.2527616528041055, 7.406241544204639, 9.400856715933317, 12.48432168866281, 13.973921754361951]},
}
EF_GPUS = [1, 2, 4, 8, 16, 32, 64]
for model, tab in EF.items():
    rows = []
    for gb, its in sorted(tab.items()):
        for g, it in zip(EF_GPUS, its):
            if it is None:      # deepspeech2 global batch 32 on 64 GPUs: empty cell in the source
                continue
            rows.append((g, gb, gb * it))     # samples/s = global batch x iterations/s
    rows.sort()
    write(f"elasticflow-{model}-a100", rows, 8)

# ---------------------------------------------------------------------------------------------------------------
# mosaicml/llm-foundry @ 061f2c7ce64e655100286584a7629e2a09f827ba, scripts/train/benchmarking/README.md,
# section "H100 80GB BF16", MPT-13B, seq 2048, micro-batch 2, grad-accum 1, FSDP FULL_SHARD, no activation ckpt.
# Throughput (T/s) column; samples/s = T/s / 2048 (the S/s column is rounded to integers, not used).
SEQ = 2048
write("mpt-13b-h100-bf16", [(g, 2 * g, tps / SEQ) for g, tps in
                            [(8, 38336), (16, 76280), (32, 153960), (64, 307209)]], 8)

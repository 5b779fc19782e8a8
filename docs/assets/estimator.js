/* The memory calculator of the overview (<MemoryEstimator/>): a line-by-line port of hooks/perfdocs/memory.py,
   checked against it over a grid of inputs in Chromium (tests/browser/test_estimator.py), and the form around it.
   Plain JavaScript, no build step, no request: the presets, card sizes and labels come from the page
   (budgets.py writes them into data-estimator), the inputs live in the URL fragment (#memory-estimator?...). */
(function () {
  "use strict";

  // ---------------------------------------------------------------------------------------------------------
  // The model: memory.py, ported. Names and order follow the Python so a diff of the two reads line by line.
  // ---------------------------------------------------------------------------------------------------------
  var ACT_SAVED = { silu: 1, swish: 1, gelu: 1, gelu_pytorch_tanh: 1, relu: 1, gelu_new: 4 };
  var WEIGHT_BYTES = { fp32: 4, mixed: 2, bf16: 2 };
  var KV_BYTES = { fp32: 4, bf16: 2, fp8: 1 };
  var CHOICES = {
    mode: ["train", "infer"],
    precision: ["fp32", "mixed", "bf16"],
    optimizer: ["adamw", "adamw_8bit", "paged_adamw_8bit", "adafactor", "sgd", "sgd_momentum"],
    finetune: ["full", "lora", "qlora"],
    attention: ["sdpa", "eager"],
    quantization: ["none", "int8", "nf4"],
    kv_cache_dtype: ["auto", "fp32", "bf16", "fp8"],
    sharding: ["none", "zero1", "zero2", "zero3", "fsdp_shard_grad_op", "fsdp_full_shard"],
    device: ["cuda", "cpu"]
  };
  var ZERO_STAGE = { none: 0, zero1: 1, zero2: 2, zero3: 3, fsdp_shard_grad_op: 2, fsdp_full_shard: 3 };
  var DEFAULTS = {
    mode: "train", precision: "mixed", autocast: false, optimizer: "adamw", finetune: "full", lora_rank: 16,
    lora_targets: null, lora_dropout: 0.05,
    adafactor_first_moment: false, gradient_checkpointing: false, attention: "sdpa", batch_size: 1, seq_len: 2048,
    quantization: "none", double_quant: true, kv_cache_dtype: "auto", sharding: "none", num_gpus: 1,
    offload_optimizer: false, offload_params: false, device: "cuda",
    prefill_chunk: null
  };

  function repr(v) { // Python's repr, for error messages that read as memory.py's
    if (v === null || v === undefined) return "None";
    if (v === true) return "True";
    if (v === false) return "False";
    if (typeof v === "string") return "'" + v + "'";
    if (Array.isArray(v)) return "[" + v.map(repr).join(", ") + "]";
    return String(v);
  }
  function isInt(v) { return typeof v === "number" && Number.isInteger(v); }
  function positive(name, v) {
    if (!isInt(v) || v <= 0) throw new Error(name + " must be a positive integer, got " + repr(v));
    return v;
  }
  function nonNegative(name, v) {
    if (!isInt(v) || v < 0) throw new Error(name + " must be a non-negative integer, got " + repr(v));
    return v;
  }
  function probability(name, v) {
    if (typeof v !== "number" || !(v >= 0 && v < 1)) throw new Error(name + " must be a number in [0, 1), got " + repr(v));
    return v;
  }
  function choice(name, v, choices) {
    if (choices.indexOf(v) < 0) throw new Error(name + " must be one of " + choices.join(", ") + "; got " + repr(v));
    return v;
  }
  function prod(shape) { return shape.reduce(function (a, b) { return a * b; }, 1); }
  function sum(xs) { return xs.reduce(function (a, b) { return a + b; }, 0); }
  function floorDiv(a, b) { return Math.floor(a / b); }

  var ARCH_DEFAULTS = {
    tie_embeddings: false, mlp: "gated", hidden_act: "silu", norm: "rmsnorm", qkv_bias: false, o_bias: false,
    mlp_bias: false, max_position_embeddings: 0, num_experts: 0, experts_per_token: 0, moe_intermediate_size: 0,
    shared_expert_intermediate_size: 0, num_moe_layers: 0, moe_norm_topk: false, sliding_window: 0,
    num_sliding_layers: 0, attention_dropout: 0, hidden_dropout: 0, embedding_dropout: 0, eager_softmax_fp32: true
  };

  function makeArch(fields) { // Arch(...) with __post_init__'s checks
    var a = {};
    Object.keys(ARCH_DEFAULTS).forEach(function (k) { a[k] = ARCH_DEFAULTS[k]; });
    Object.keys(fields).forEach(function (k) { a[k] = fields[k]; });
    ["hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim", "vocab_size"].forEach(function (k) {
      positive(k, a[k]);
    });
    ["intermediate_size", "max_position_embeddings", "num_experts", "experts_per_token", "moe_intermediate_size",
      "shared_expert_intermediate_size", "num_moe_layers", "sliding_window", "num_sliding_layers"].forEach(function (k) {
      nonNegative(k, a[k]);
    });
    ["attention_dropout", "hidden_dropout", "embedding_dropout"].forEach(function (k) { probability(k, a[k]); });
    choice("mlp", a.mlp, ["gated", "plain"]);
    choice("norm", a.norm, ["rmsnorm", "layernorm"]);
    if (!Object.prototype.hasOwnProperty.call(ACT_SAVED, a.hidden_act)) {
      throw new Error("hidden_act " + repr(a.hidden_act) + " is not modeled; supported: " + Object.keys(ACT_SAVED).join(", "));
    }
    if (a.num_heads % a.num_kv_heads) {
      throw new Error("num_heads (" + a.num_heads + ") must be a multiple of num_kv_heads (" + a.num_kv_heads + ")");
    }
    if (a.num_moe_layers > a.num_layers) {
      throw new Error("num_moe_layers (" + a.num_moe_layers + ") exceeds num_layers (" + a.num_layers + ")");
    }
    if (a.num_sliding_layers > a.num_layers) {
      throw new Error("num_sliding_layers (" + a.num_sliding_layers + ") exceeds num_layers (" + a.num_layers + ")");
    }
    if (a.num_moe_layers) {
      if (!a.num_experts || !a.moe_intermediate_size) throw new Error("an MoE layer needs num_experts and moe_intermediate_size");
      if (!(a.experts_per_token > 0 && a.experts_per_token <= a.num_experts)) {
        throw new Error("experts_per_token must be between 1 and num_experts (" + a.num_experts + "), got " + a.experts_per_token);
      }
      if (a.mlp !== "gated") throw new Error("MoE experts are modeled as gated (SwiGLU) MLPs only");
    }
    if (a.num_layers > a.num_moe_layers && !a.intermediate_size) {
      throw new Error("intermediate_size must be a positive integer for dense layers, got 0");
    }
    a.q_dim = a.num_heads * a.head_dim;
    a.kv_dim = a.num_kv_heads * a.head_dim;
    a.num_dense_layers = a.num_layers - a.num_moe_layers;
    a.tensors = tensorsOf(a);
    a.param_count = sum(a.tensors.map(function (t) { return prod(t.shape) * t.count; }));
    var sizes = {};
    a.tensors.forEach(function (t) { sizes[t.module] = (sizes[t.module] || 0) + prod(t.shape); });
    a.largest_module_params = Math.max.apply(null, Object.keys(sizes).map(function (k) { return sizes[k]; }));
    return a;
  }

  function tensorsOf(a) {
    var h = a.hidden_size, L = a.num_layers, out = [];
    var counts = { model: 1, layer: L, dense: a.num_dense_layers, moe: a.num_moe_layers };
    function add(module, pname, shape, scope, kind, io) {
      if (counts[scope]) out.push({ module: module, name: pname, shape: shape, count: counts[scope], kind: kind, scope: scope, linear: io });
    }
    function linear(module, fanIn, fanOut, bias, scope) {
      var shape = a.model_type === "gpt2" ? [fanIn, fanOut] : [fanOut, fanIn];
      add(module, "weight", shape, scope, "linear", [fanIn, fanOut]);
      if (bias) add(module, "bias", [fanOut], scope, "bias", null);
    }
    function norm(module, scope) {
      add(module, "weight", [h], scope, "norm", null);
      if (a.norm === "layernorm") add(module, "bias", [h], scope, "norm", null);
    }
    function gatedMlp(prefix, inter, scope) {
      linear(prefix + ".gate_proj", h, inter, a.mlp_bias, scope);
      linear(prefix + ".up_proj", h, inter, a.mlp_bias, scope);
      linear(prefix + ".down_proj", inter, h, a.mlp_bias, scope);
    }
    if (a.model_type === "gpt2") {
      add("wte", "weight", [a.vocab_size, h], "model", "embedding", null);
      add("wpe", "weight", [a.max_position_embeddings, h], "model", "position", null);
      norm("ln_1", "layer");
      linear("attn.c_attn", h, a.q_dim + 2 * a.kv_dim, a.qkv_bias, "layer");
      linear("attn.c_proj", a.q_dim, h, a.o_bias, "layer");
      norm("ln_2", "layer");
      linear("mlp.c_fc", h, a.intermediate_size, a.mlp_bias, "layer");
      linear("mlp.c_proj", a.intermediate_size, h, a.mlp_bias, "layer");
      norm("ln_f", "model");
    } else {
      add("embed_tokens", "weight", [a.vocab_size, h], "model", "embedding", null);
      if (a.max_position_embeddings) add("embed_positions", "weight", [a.max_position_embeddings, h], "model", "position", null);
      norm("input_layernorm", "layer");
      linear("self_attn.q_proj", h, a.q_dim, a.qkv_bias, "layer");
      linear("self_attn.k_proj", h, a.kv_dim, a.qkv_bias, "layer");
      linear("self_attn.v_proj", h, a.kv_dim, a.qkv_bias, "layer");
      linear("self_attn.o_proj", a.q_dim, h, a.o_bias, "layer");
      norm("post_attention_layernorm", "layer");
      if (a.mlp === "gated") {
        gatedMlp("mlp", a.intermediate_size, "dense");
      } else {
        linear("mlp.fc1", h, a.intermediate_size, a.mlp_bias, "dense");
        linear("mlp.fc2", a.intermediate_size, h, a.mlp_bias, "dense");
      }
      var e = a.num_experts, ie = a.moe_intermediate_size;
      add("mlp.gate", "weight", [e, h], "moe", "router", null);
      add("mlp.experts", "gate_up_proj", [e, 2 * ie, h], "moe", "experts", null);
      add("mlp.experts", "down_proj", [e, h, ie], "moe", "experts", null);
      if (a.shared_expert_intermediate_size) {
        gatedMlp("mlp.shared_expert", a.shared_expert_intermediate_size, "moe");
        linear("mlp.shared_expert_gate", h, 1, false, "moe");
      }
      norm("norm", "model");
    }
    if (!a.tie_embeddings) add("lm_head", "weight", [a.vocab_size, h], "model", "embedding", null);
    return out;
  }

  var REQUIRED = {
    gpt2: ["n_embd", "n_layer", "n_head", "vocab_size", "n_positions"],
    llama: ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"],
    mistral: ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"],
    qwen2: ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size"],
    mixtral: ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size",
      "num_local_experts", "num_experts_per_tok"],
    qwen2_moe: ["hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "intermediate_size",
      "num_experts", "num_experts_per_tok", "moe_intermediate_size"]
  };

  function fromConfig(config, name) { // Arch.from_config
    if (config === null || typeof config !== "object" || Array.isArray(config)) {
      throw new Error("config must be a mapping (config.to_dict() or config.json), got " + (Array.isArray(config) ? "list" : config === null ? "NoneType" : typeof config));
    }
    var type = config.model_type;
    if (type === undefined || type === null) throw new Error("config has no 'model_type' key (the key every transformers config.json carries)");
    if (!Object.prototype.hasOwnProperty.call(REQUIRED, type)) {
      throw new Error("unsupported model_type " + repr(type) + "; supported: " + Object.keys(REQUIRED).sort().join(", "));
    }
    var missing = REQUIRED[type].filter(function (k) { return config[k] === undefined || config[k] === null; });
    if (missing.length) throw new Error("config for model_type " + repr(type) + " is missing required key(s): " + missing.join(", "));
    var label = name || String(config._name_or_path || type);
    function get(k, d) { var v = config[k]; return v === undefined || v === null ? d : v; }
    var h, heads;
    if (type === "gpt2") {
      h = config.n_embd; heads = config.n_head;
      if (isInt(h) && isInt(heads) && heads > 0 && h % heads) throw new Error("n_embd (" + h + ") must be divisible by n_head (" + heads + ")");
      return makeArch({
        name: label, model_type: "gpt2", hidden_size: h, num_layers: config.n_layer, num_heads: heads,
        num_kv_heads: heads, head_dim: isInt(h) && isInt(heads) && heads > 0 ? floorDiv(h, heads) : h,
        vocab_size: config.vocab_size, intermediate_size: get("n_inner", isInt(h) ? 4 * h : h),
        tie_embeddings: Boolean(get("tie_word_embeddings", true)), mlp: "plain",
        hidden_act: get("activation_function", "gelu_new"), norm: "layernorm", qkv_bias: true, o_bias: true,
        mlp_bias: true, max_position_embeddings: config.n_positions, attention_dropout: get("attn_pdrop", 0.1),
        hidden_dropout: get("resid_pdrop", 0.1), embedding_dropout: get("embd_pdrop", 0.1), eager_softmax_fp32: false
      });
    }
    h = config.hidden_size; heads = config.num_attention_heads;
    var layers = config.num_hidden_layers;
    var common = {
      name: label, model_type: type, hidden_size: h, num_layers: layers, num_heads: heads,
      num_kv_heads: get("num_key_value_heads", heads),
      head_dim: get("head_dim", isInt(h) && isInt(heads) && heads > 0 ? floorDiv(h, heads) : h),
      vocab_size: config.vocab_size, intermediate_size: config.intermediate_size,
      tie_embeddings: Boolean(get("tie_word_embeddings", false)), hidden_act: get("hidden_act", "silu"),
      attention_dropout: get("attention_dropout", 0.0)
    };
    var sliding = slidingLayers(config, type, layers);
    common.sliding_window = sliding[0];
    common.num_sliding_layers = sliding[1];
    function withFields(extra) {
      var f = {};
      Object.keys(common).forEach(function (k) { f[k] = common[k]; });
      Object.keys(extra).forEach(function (k) { f[k] = extra[k]; });
      return makeArch(f);
    }
    if (type === "llama") {
      var bias = Boolean(get("attention_bias", false));
      return withFields({ qkv_bias: bias, o_bias: bias, mlp_bias: Boolean(get("mlp_bias", false)) });
    }
    if (type === "mistral") return withFields({});
    if (type === "qwen2") return withFields({ qkv_bias: true });
    if (type === "mixtral") {
      return withFields({
        intermediate_size: 0, num_experts: config.num_local_experts, experts_per_token: config.num_experts_per_tok,
        moe_intermediate_size: config.intermediate_size, num_moe_layers: layers, moe_norm_topk: true
      });
    }
    var step = get("decoder_sparse_step", 1), denseOnly = get("mlp_only_layers", []), experts = config.num_experts;
    var nMoe = 0;
    for (var i = 0; i < (isInt(layers) ? layers : 0); i++) {
      if (denseOnly.indexOf(i) < 0 && experts > 0 && (i + 1) % step === 0) nMoe++;
    }
    return withFields({
      qkv_bias: Boolean(get("qkv_bias", true)), num_experts: experts, experts_per_token: config.num_experts_per_tok,
      moe_intermediate_size: config.moe_intermediate_size,
      shared_expert_intermediate_size: get("shared_expert_intermediate_size", 0), num_moe_layers: nMoe,
      moe_norm_topk: Boolean(get("norm_topk_prob", false))
    });
  }

  function slidingLayers(config, type, layers) {
    var window = config.sliding_window || 0;
    if (type === "mistral" && window) return [window, layers];
    if ((type === "qwen2" || type === "qwen2_moe") && window && config.use_sliding_window) {
      var types = config.layer_types || [];
      return [window, types.filter(function (t) { return t === "sliding_attention"; }).length];
    }
    return [0, 0];
  }

  function makeWorkload(fields) { // Workload(...) with __post_init__'s checks
    var w = {};
    Object.keys(DEFAULTS).forEach(function (k) { w[k] = DEFAULTS[k]; });
    Object.keys(fields || {}).forEach(function (k) {
      if (!Object.prototype.hasOwnProperty.call(DEFAULTS, k)) throw new Error("unknown workload field " + repr(k));
      w[k] = fields[k];
    });
    ["mode", "precision", "optimizer", "finetune", "attention", "quantization", "kv_cache_dtype", "sharding", "device"]
      .forEach(function (k) { choice(k, w[k], CHOICES[k]); });
    ["lora_rank", "batch_size", "seq_len", "num_gpus"].forEach(function (k) { positive(k, w[k]); });
    probability("lora_dropout", w.lora_dropout);
    if (typeof w.autocast !== "boolean") throw new Error("autocast must be True or False, got " + repr(w.autocast));
    if (w.autocast && w.mode === "infer") throw new Error("autocast is modeled for training; for inference set precision (the stored dtype)");
    if (w.autocast && w.finetune === "full" && w.precision !== "fp32") throw new Error("autocast with finetune='full' is AMP on fp32 weights: set precision='fp32'");
    if (w.lora_targets !== null && (!Array.isArray(w.lora_targets) || !w.lora_targets.length)) {
      throw new Error("lora_targets must be a non-empty tuple of module names, got " + repr(w.lora_targets));
    }
    w.zero_stage = ZERO_STAGE[w.sharding];
    if (w.mode === "train") {
      if (w.finetune === "full" && w.quantization !== "none") throw new Error("quantized weights are frozen: train them with finetune='qlora', not 'full'");
      if (w.finetune === "lora" && w.quantization !== "none") throw new Error("LoRA on a quantized base is finetune='qlora'");
      if (w.finetune === "qlora" && w.quantization === "int8") throw new Error("QLoRA quantizes the base to NF4, not int8");
    }
    if (w.sharding !== "none" && w.mode === "infer") throw new Error("ZeRO/FSDP sharding applies to training; for inference set num_gpus alone");
    if (w.offload_params && w.mode === "train" && w.zero_stage !== 3) throw new Error("offload_params needs parameter sharding: sharding='zero3' or 'fsdp_full_shard'");
    if (w.offload_optimizer && w.mode === "infer") throw new Error("offload_optimizer applies to training");
    if (w.offload_optimizer && w.zero_stage === 0) throw new Error("offload_optimizer needs ZeRO (stage 1-3) or FSDP: set sharding");
    if (w.prefill_chunk !== null) {
      positive("prefill_chunk", w.prefill_chunk);
      if (w.mode === "train") throw new Error("prefill_chunk applies to inference");
    }
    w.base_quantization = w.finetune === "qlora" && w.mode === "train" ? "nf4" : w.quantization;
    w.act_bytes = w.precision === "fp32" && !w.autocast ? 4 : 2;
    w.amp = w.autocast && w.precision === "fp32";
    return w;
  }

  function quantizedBytes(numel, outFeatures, quantization, doubleQuant) {
    if (quantization === "int8") return numel + 4 * outFeatures;
    var blocks = Math.ceil(numel / 64), packed = Math.ceil(numel / 2);
    if (doubleQuant) return packed + blocks + 4 * Math.ceil(blocks / 256) + 4 + 256 * 4 + 16 * 4;
    return packed + 4 * blocks + 16 * 4;
  }

  function optimizerStateBytes(shape, optimizer, elementBytes, firstMoment) {
    var n = prod(shape);
    if (optimizer === "adamw") return 2 * elementBytes * n;
    if (optimizer === "adamw_8bit" || optimizer === "paged_adamw_8bit") {
      if (n < 4096) return 2 * 4 * n;
      return 2 * n + 2 * 4 * Math.ceil(n / 256);
    }
    if (optimizer === "adafactor") {
      var v = shape.length >= 2 ? 4 * (prod(shape.slice(0, -1)) + prod(shape.slice(0, -2)) * shape[shape.length - 1]) : 4 * n;
      return v + (firstMoment ? 4 * n : 0);
    }
    if (optimizer === "sgd_momentum") return elementBytes * n;
    return 0;
  }

  function loraTensors(arch, rank, targets) {
    positive("lora_rank", rank);
    if (targets === null) targets = arch.model_type === "gpt2" ? ["c_attn"] : ["q_proj", "v_proj"];
    var linears = arch.tensors.filter(function (t) { return t.linear !== null; });
    var out = [], seen = {};
    targets.forEach(function (target) {
      var hits = linears.filter(function (t) {
        return target === "all-linear" || t.module === target || t.module.slice(-(target.length + 1)) === "." + target;
      });
      if (!hits.length) {
        var names = [];
        linears.forEach(function (t) { var n = t.module.split(".").pop(); if (names.indexOf(n) < 0) names.push(n); });
        throw new Error("LoRA target " + repr(target) + " matches no linear module of " + arch.name + "; modules: " + names.join(", "));
      }
      hits.forEach(function (t) {
        [[t.module + ".lora_A", [rank, t.linear[0]]], [t.module + ".lora_B", [t.linear[1], rank]]].forEach(function (m) {
          var key = m[0] + "|" + m[1].join("x") + "|" + t.count + "|" + t.scope;
          if (seen[key]) return;
          seen[key] = true;
          out.push({ module: m[0], name: "weight", shape: m[1], count: t.count, kind: "linear", scope: t.scope, linear: null });
        });
      });
    });
    return out;
  }

  function kvCacheBytes(arch, batch, tokens, elementBytes) {
    var full = arch.num_layers - arch.num_sliding_layers;
    var sliding = arch.sliding_window ? Math.min(tokens, arch.sliding_window) * arch.num_sliding_layers : 0;
    return 2 * arch.kv_dim * elementBytes * batch * (full * tokens + sliding);
  }

  var LORA_INPUT = {
    q_proj: "attn_in", k_proj: "attn_in", v_proj: "attn_in", c_attn: "attn_in", o_proj: "attn_out",
    "attn.c_proj": "attn_out", gate_proj: "mlp_in", up_proj: "mlp_in", c_fc: "mlp_in", shared_expert_gate: "mlp_in",
    down_proj: "mlp_act", "mlp.c_proj": "mlp_act", "mlp.fc2": "mlp_act", "mlp.fc1": "mlp_in"
  };
  function endsWith(s, suffix) { return s.slice(-suffix.length) === suffix; }
  function loraInputGroup(module) {
    var keys = ["attn.c_proj", "mlp.c_proj", "mlp.fc1", "mlp.fc2"];
    for (var i = 0; i < keys.length; i++) if (endsWith(module, keys[i])) return LORA_INPUT[keys[i]];
    var group = LORA_INPUT[module.split(".").pop()];
    return group === "mlp_act" && module.indexOf(".shared_expert.") >= 0 ? "shared_act" : group;
  }

  function loraSaved(arch, w, scope, sdpaOutputSaved) {
    var tokens = w.batch_size * w.seq_len, inputs = {}, total = 0;
    var mask = w.device === "cuda" ? 1 : 4;
    loraTensors(arch, w.lora_rank, w.lora_targets).forEach(function (t) {
      if ((t.scope !== scope && t.scope !== "layer") || !endsWith(t.module, ".lora_A")) return;
      var rank = t.shape[0], fanIn = t.shape[1];
      if (w.lora_dropout > 0) total += mask * tokens * fanIn;
      if (w.autocast) { total += 2 * tokens * rank + 2 * tokens * fanIn; return; }
      total += 4 * tokens * rank;
      if (w.act_bytes !== 4 || w.lora_dropout > 0) total += 4 * tokens * fanIn;
      else inputs[loraInputGroup(t.module.slice(0, -".lora_A".length))] = fanIn;
    });
    if (sdpaOutputSaved) delete inputs.attn_out;
    return total + sum(Object.keys(inputs).map(function (k) { return 4 * tokens * inputs[k]; }));
  }

  function firstLayerLoraA(arch, w) {
    return loraTensors(arch, w.lora_rank, w.lora_targets).filter(function (t) {
      return endsWith(t.module, ".lora_A") && loraInputGroup(t.module.slice(0, -".lora_A".length)) === "attn_in";
    });
  }

  function activations(arch, w) {
    var d = w.act_bytes, b = w.batch_size, s = w.seq_len, tokens = b * s;
    var h = arch.hidden_size, nh = arch.num_heads;
    var r = w.amp ? 4 : d;
    var mask = w.device === "cuda" ? 1 : d;
    var a = ACT_SAVED[arch.hidden_act];
    var frozen = w.finetune !== "full";
    var fp32Ops = w.amp || (w.autocast && w.device === "cuda");
    var fp32Layernorm = fp32Ops && arch.norm === "layernorm";
    var normIn;
    if (arch.norm === "rmsnorm") normIn = 4 * tokens * h + 4 * tokens;
    else if (fp32Layernorm) normIn = 4 * tokens * h + 2 * tokens * 4;
    else normIn = d * tokens * h + 2 * tokens * (w.device === "cuda" ? 4 : d);
    function norm(consumers) {
      if (frozen) return normIn;
      if (w.autocast) return normIn + (arch.norm === "rmsnorm" ? 4 * tokens * h : 0) + consumers * 2 * tokens * h;
      return normIn + (arch.norm === "rmsnorm" ? 2 * d * tokens * h : d * tokens * h);
    }
    var attnConsumers = arch.model_type === "gpt2" ? 1 : 3;
    var mlpConsumers = arch.mlp === "gated" ? 2 : 1;
    var moeConsumers = 1 + (arch.shared_expert_intermediate_size ? 3 : 0);
    var qkv = tokens * (arch.q_dim + 2 * arch.kv_dim) * d;
    var out = tokens * arch.q_dim * d;
    var scoresStored = w.attention === "eager" || (w.device === "cpu" && arch.attention_dropout > 0);
    var attention;
    if (scoresStored) {
      var scoreBytes = w.attention === "eager" && (arch.eager_softmax_fp32 || fp32Ops) ? 4 + (d !== 4 ? d : 0) : d;
      if (arch.attention_dropout > 0) scoreBytes += mask + d;
      var qkvSaved = arch.model_type === "gpt2" ? qkv : 3 * out;
      attention = qkvSaved + b * nh * s * s * scoreBytes + (frozen ? 0 : out);
    } else {
      attention = qkv + out + 4 * b * nh * s;
    }
    var dropout = arch.hidden_dropout > 0 ? 2 * tokens * h * mask : 0;
    var keptOutput = frozen ? 0 : 1;
    var denseUnits = arch.mlp === "gated" ? a + 2 + keptOutput : a + keptOutput;
    var perDense = norm(attnConsumers) + norm(mlpConsumers) + attention + denseUnits * tokens * arch.intermediate_size * d + dropout;
    if (frozen) perDense += loraSaved(arch, w, "dense", !scoresStored);
    var perMoe = 0;
    if (arch.num_moe_layers) {
      var rows = tokens * arch.experts_per_token;
      var ie = arch.moe_intermediate_size, e = arch.num_experts, k = arch.experts_per_token;
      var de = w.amp ? 4 : d;
      var weight = arch.model_type === "mixtral" ? 4 : d;
      var row = (h + (2 + a) * ie + (frozen ? 0 : h + ie)) * de + weight + 24;
      var experts = rows * row + 4 * e;
      var router = tokens * (4 * e + 8 * k + (arch.moe_norm_topk ? 4 + 4 * k : 0));
      var shared = 0;
      if (arch.shared_expert_intermediate_size) {
        var units = a + 2 + keptOutput;
        shared = units * tokens * arch.shared_expert_intermediate_size * d + tokens * h * d + tokens * d;
      }
      perMoe = norm(attnConsumers) + norm(moeConsumers) + attention + experts + router + shared + dropout;
      if (frozen) perMoe += loraSaved(arch, w, "moe", !scoresStored);
    }
    var layers, recompute;
    if (w.gradient_checkpointing) {
      layers = arch.num_layers * tokens * h * r;
      recompute = Math.max(arch.num_dense_layers ? perDense : 0, perMoe);
    } else {
      layers = arch.num_dense_layers * perDense + arch.num_moe_layers * perMoe;
      recompute = 0;
      if (frozen) {
        layers -= normIn;
        if (w.lora_dropout > 0) {
          var maskBytes = w.device === "cuda" ? 1 : 4;
          layers -= sum(firstLayerLoraA(arch, w).map(function (t) { return maskBytes * tokens * t.shape[1]; }));
        }
      }
    }
    var extras = (frozen ? 0 : 8 * tokens) + norm(1);
    if (arch.max_position_embeddings) extras += frozen ? 0 : 8 * s;
    else extras += 2 * s * arch.head_dim * r;
    if (arch.embedding_dropout > 0) extras += tokens * h * (w.device === "cuda" ? 1 : r);
    if (w.gradient_checkpointing && scoresStored) extras += b * s * s * r;
    var logitsOutput = tokens * arch.vocab_size * d;
    var loss = tokens * arch.vocab_size * 4 + 8 * tokens + 4;
    return { per_dense_layer: perDense, per_moe_layer: perMoe, layers: layers, recompute: recompute, extras: extras,
      logits_output: logitsOutput, loss: loss, logits: logitsOutput + loss };
  }

  function autocastCopies(arch, w) { // memory.autocast_copies
    if (!w.autocast) return 0;
    var cached = { layer: 0, dense: 0, moe: 0 }, recast = { layer: 0, dense: 0, moe: 0 }, once = 0;
    if (w.amp) {
      var layerCasts = w.finetune === "full" ? cached : recast;
      arch.tensors.forEach(function (t) {
        if (t.linear !== null || t.kind === "router") layerCasts[t.scope] += prod(t.shape);
        else if (t.module === "lm_head" || (arch.tie_embeddings && t.kind === "embedding")) once += prod(t.shape);
        else if (t.kind === "bias" && w.finetune === "full") cached[t.scope] += prod(t.shape);
      });
    }
    if (w.finetune !== "full") {
      loraTensors(arch, w.lora_rank, w.lora_targets).forEach(function (t) { cached[t.scope] += prod(t.shape); });
    }
    function allLayers(per) {
      return per.layer * arch.num_layers + per.dense * arch.num_dense_layers + per.moe * arch.num_moe_layers;
    }
    if (w.gradient_checkpointing) {
      var dense = arch.num_dense_layers ? recast.dense : 0, moe = arch.num_moe_layers ? recast.moe : 0;
      return 2 * (allLayers(cached) + recast.layer + Math.max(dense, moe) + once);
    }
    if (w.finetune !== "full" && w.amp) {
      once -= sum(arch.tensors.filter(function (t) {
        return t.linear !== null && loraInputGroup(t.module) === "attn_in";
      }).map(function (t) { return prod(t.shape); }));
    }
    return 2 * (allLayers(cached) + allLayers(recast) + once);
  }

  function weightsBytes(arch, w, quant) {
    var wb = WEIGHT_BYTES[w.precision], total = 0;
    arch.tensors.forEach(function (t) {
      if (quant !== "none" && t.linear !== null) total += t.count * quantizedBytes(prod(t.shape), t.linear[1], quant, w.double_quant);
      else total += t.count * prod(t.shape) * wb;
    });
    return total;
  }

  function result(arch, terms, params, trainable) {
    var gpu = sum(terms.map(function (t) { return t[1]; })), host = sum(terms.map(function (t) { return t[2]; }));
    var named = {};
    terms.forEach(function (t) { named[t[0]] = { gpu: t[1], host: t[2] }; });
    return { params: params, trainable_params: trainable, terms: named, order: terms.map(function (t) { return t[0]; }),
      gpu_total: gpu, host_total: host, arch: arch };
  }

  function train(arch, w) {
    var n = w.num_gpus, stage = w.zero_stage, wb = WEIGHT_BYTES[w.precision], quant = w.base_quantization;
    var trainable, trainBytes, masterBytes, stateElement;
    if (w.finetune === "full") {
      trainable = arch.tensors; trainBytes = wb; masterBytes = w.precision === "mixed" ? 4 : 0;
      stateElement = w.precision === "bf16" ? 2 : 4;
    } else {
      trainable = loraTensors(arch, w.lora_rank, w.lora_targets); trainBytes = 4; masterBytes = 0; stateElement = 4;
    }
    var nTrain = sum(trainable.map(function (t) { return prod(t.shape) * t.count; }));
    var states = sum(trainable.map(function (t) {
      return t.count * optimizerStateBytes(t.shape, w.optimizer, stateElement, w.adafactor_first_moment);
    }));
    if ((w.optimizer === "adamw_8bit" || w.optimizer === "paged_adamw_8bit") &&
        trainable.some(function (t) { return prod(t.shape) >= 4096; })) states += 2 * 256 * 4;
    function shard(bytes, fromStage) { return stage >= fromStage ? bytes / n : bytes; }
    var weights = shard(weightsBytes(arch, w, quant), 3);
    var adapter = shard(w.finetune !== "full" ? nTrain * trainBytes : 0, 3);
    var grads = shard(nTrain * trainBytes, 2), master = shard(nTrain * masterBytes, 1), optim = shard(states, 1);
    var gathered = stage === 3 ? 2 * wb * arch.largest_module_params : 0;
    var host = { weights: 0, gradients: 0, master_weights: 0, optimizer_states: 0 };
    var gpu = { weights: weights, gradients: grads, master_weights: master, optimizer_states: optim };
    if (w.offload_optimizer) {
      host.gradients = nTrain * 4 / n; gpu.gradients = 0;
      host.master_weights = master; gpu.master_weights = 0;
      host.optimizer_states = optim; gpu.optimizer_states = 0;
    }
    if (w.offload_params) { host.weights = weights; gpu.weights = 0; }
    var act = activations(arch, w);
    return result(arch, [
      ["weights", gpu.weights, host.weights], ["adapter_weights", adapter, 0], ["gradients", gpu.gradients, host.gradients],
      ["master_weights", gpu.master_weights, host.master_weights],
      ["optimizer_states", gpu.optimizer_states, host.optimizer_states], ["gathered_params", gathered, 0],
      ["autocast_copies", autocastCopies(arch, w), 0],
      ["activations", act.layers + act.extras + act.recompute, 0], ["logits", act.logits, 0], ["kv_cache", 0, 0]
    ], arch.param_count, nTrain);
  }

  function weightsLargestLayer(arch, w) {
    var wb = WEIGHT_BYTES[w.precision];
    function size(scope) {
      var total = 0;
      arch.tensors.forEach(function (t) {
        if (t.scope !== scope) return;
        if (w.quantization !== "none" && t.linear !== null) total += quantizedBytes(prod(t.shape), t.linear[1], w.quantization, w.double_quant);
        else total += prod(t.shape) * wb;
      });
      return total;
    }
    return size("layer") + Math.max(size("dense"), size("moe"));
  }

  function infer(arch, w) {
    var n = w.num_gpus, d = w.act_bytes, b = w.batch_size, s = w.seq_len;
    var weights = weightsBytes(arch, w, w.quantization);
    var kvBytes = w.kv_cache_dtype === "auto" ? d : KV_BYTES[w.kv_cache_dtype];
    var kv = kvCacheBytes(arch, b, s, kvBytes);
    var logits = b * arch.vocab_size * (d + 4);
    var tokens = w.prefill_chunk === null ? b * s : Math.min(w.prefill_chunk, b * s), h = arch.hidden_size;
    var inter = Math.max(arch.intermediate_size, arch.moe_intermediate_size * arch.experts_per_token);
    var attn = tokens * (2 * arch.q_dim + 2 * arch.kv_dim) * d;
    if (w.attention === "eager") attn += arch.num_heads * tokens * s * (4 + (d !== 4 ? d : 0));
    var working = 2 * tokens * h * d + Math.max(attn, 3 * tokens * inter * d);
    var hostWeights = 0, gpuWeights = weights / n;
    if (w.offload_params) { hostWeights = weights; gpuWeights = weightsLargestLayer(arch, w); }
    return result(arch, [
      ["weights", gpuWeights, hostWeights], ["adapter_weights", 0, 0], ["gradients", 0, 0], ["master_weights", 0, 0],
      ["optimizer_states", 0, 0], ["gathered_params", 0, 0], ["autocast_copies", 0, 0], ["activations", working, 0], ["logits", logits, 0],
      ["kv_cache", kv / n, 0]
    ], arch.param_count, 0);
  }

  function estimate(arch, workload) { // memory.estimate
    var w = makeWorkload(workload);
    return w.mode === "infer" ? infer(arch, w) : train(arch, w);
  }

  // budgets.py's format_amount and fits: the same figures the tables print.
  function fmt(value) {
    if (value === 0) return "0";
    if (value < 0.01) return "< 0.01";
    var digits = value >= 100 ? 0 : value >= 10 ? 1 : 2, scale = Math.pow(10, digits);
    var scaled = Math.floor(value * scale + 0.5), whole = Math.floor(scaled / scale);
    if (digits && whole >= Math.pow(10, 3 - digits)) {
      digits -= 1; scale = Math.pow(10, digits);
      scaled = Math.floor(value * scale + 0.5); whole = Math.floor(scaled / scale);
    }
    var fraction = scaled - whole * scale;
    var text = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return digits ? text + "." + String(fraction).padStart(digits, "0") : text;
  }
  function fits(total, cards, headroom) {
    return cards.filter(function (c) { return total + headroom <= c * 1e9; });
  }

  var model = {
    fromConfig: fromConfig, estimate: estimate, kvCacheBytes: kvCacheBytes, quantizedBytes: quantizedBytes,
    optimizerStateBytes: optimizerStateBytes, activations: function (arch, w) { return activations(arch, makeWorkload(w)); },
    format: fmt, fits: fits
  };

  // ---------------------------------------------------------------------------------------------------------
  // The form
  // ---------------------------------------------------------------------------------------------------------
  var PREFIX = "#memory-estimator?";
  // Architecture fields: the config.json key each one edits, per model_type.
  var ARCH_FIELDS = [
    ["hidden", "Hidden size", { gpt2: "n_embd", "*": "hidden_size" }],
    ["layers", "Layers", { gpt2: "n_layer", "*": "num_hidden_layers" }],
    ["heads", "Attention heads", { gpt2: "n_head", "*": "num_attention_heads" }],
    ["kv_heads", "KV heads", { gpt2: null, "*": "num_key_value_heads" }],
    ["vocab", "Vocabulary", { "*": "vocab_size" }],
    ["intermediate", "MLP size", { gpt2: "n_inner", qwen2_moe: "intermediate_size", "*": "intermediate_size" }],
    ["experts", "Experts", { mixtral: "num_local_experts", qwen2_moe: "num_experts", "*": null }],
    ["experts_per_token", "Experts per token", { mixtral: "num_experts_per_tok", qwen2_moe: "num_experts_per_tok", "*": null }]
  ];
  // Config keys memory.py reads: what a pasted config keeps, and what a link carries.
  var CONFIG_KEYS = ["model_type", "hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
    "head_dim", "vocab_size", "intermediate_size", "tie_word_embeddings", "hidden_act", "attention_dropout",
    "attention_bias", "mlp_bias", "sliding_window", "use_sliding_window", "layer_types", "num_local_experts",
    "num_experts_per_tok", "num_experts", "moe_intermediate_size", "shared_expert_intermediate_size",
    "decoder_sparse_step", "mlp_only_layers", "norm_topk_prob", "qkv_bias", "n_embd", "n_layer", "n_head", "n_inner",
    "n_positions", "activation_function", "attn_pdrop", "resid_pdrop", "embd_pdrop"];
  var SELECTS = {
    mode: [["train", "Train / fine-tune"], ["infer", "Inference"]],
    device: [["cuda", "GPU"], ["cpu", "CPU"]],
    precision: [["mixed", "Mixed precision (bf16 + fp32 master)"], ["bf16", "bf16"], ["fp32", "fp32"]],
    finetune: [["full", "Full fine-tuning"], ["lora", "LoRA"], ["qlora", "QLoRA (4-bit base)"]],
    optimizer: null, // from the page's labels
    attention: [["sdpa", "SDPA / flash"], ["eager", "Eager"]],
    quantization: [["none", "None (16-bit or fp32)"], ["int8", "int8 (LLM.int8)"], ["nf4", "NF4 (4-bit)"]],
    kv_cache_dtype: [["auto", "Same as the model"], ["bf16", "bf16"], ["fp8", "fp8"], ["fp32", "fp32"]],
    sharding: [["none", "None (DDP or one GPU)"], ["zero1", "ZeRO-1"], ["zero2", "ZeRO-2"], ["zero3", "ZeRO-3"],
      ["fsdp_shard_grad_op", "FSDP SHARD_GRAD_OP"], ["fsdp_full_shard", "FSDP FULL_SHARD"]]
  };
  var LABELS = {
    mode: "Task", device: "Device", precision: "Precision", finetune: "Method", optimizer: "Optimizer",
    attention: "Attention", quantization: "Weight quantization", kv_cache_dtype: "KV cache dtype", sharding: "ZeRO / FSDP",
    lora_rank: "LoRA rank", lora_targets: "LoRA targets", batch_size: "Micro-batch", seq_len: "Sequence length (tokens)", num_gpus: "GPUs",
    gradient_checkpointing: "Gradient checkpointing", offload_optimizer: "Offload optimizer to CPU",
    offload_params: "Offload parameters to CPU", double_quant: "Double quantization (NF4)",
    prefill_chunk: "Prefill chunk (tokens a pass)",
    autocast: "bf16 autocast (Trainer bf16=True)", lora_dropout: "LoRA dropout"
  };
  var TRAIN_ONLY = ["finetune", "optimizer", "sharding", "gradient_checkpointing", "offload_optimizer", "lora_rank",
    "lora_targets", "lora_dropout", "autocast"];
  var INFER_ONLY = ["quantization", "kv_cache_dtype", "prefill_chunk"];
  var uid = 0;

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (attrs[k] !== null && attrs[k] !== false) node.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(c); });
    return node;
  }

  function Estimator(root) {
    this.root = root;
    this.data = JSON.parse(root.getAttribute("data-estimator"));
    this.id = "pe" + (++uid);
    this.controls = {};
    this.build();
    // the calculator's own link keeps the estimate in the fragment; a budget table's link sends it as the query
    this.load(location.hash.indexOf(PREFIX) === 0 ? location.hash.slice(PREFIX.length) : location.search.slice(1));
    this.update(false);
  }

  Estimator.prototype.field = function (name, control) {
    var id = this.id + "-" + name;
    control.id = id;
    control.name = name;
    this.controls[name] = control;
    var self = this;
    control.addEventListener(control.type === "checkbox" || control.tagName === "SELECT" ? "change" : "input", function () {
      self.changed(name);
    });
    if (control.type === "checkbox") {
      return el("div", { "class": "pe-field pe-check", "data-field": name }, [control, el("label", { "for": id, text: LABELS[name] || name })]);
    }
    return el("div", { "class": "pe-field", "data-field": name }, [el("label", { "for": id, text: LABELS[name] || name }), control]);
  };

  Estimator.prototype.select = function (name, options) {
    return this.field(name, el("select", {}, options.map(function (o) { return el("option", { value: o[0], text: o[1] }); })));
  };
  Estimator.prototype.number = function (name, min) {
    return this.field(name, el("input", { type: "number", min: String(min), step: "1", inputmode: "numeric" }));
  };
  Estimator.prototype.text = function (name, placeholder) {
    return this.field(name, el("input", { type: "text", placeholder: placeholder, spellcheck: "false", autocomplete: "off" }));
  };
  Estimator.prototype.check = function (name) {
    return this.field(name, el("input", { type: "checkbox" }));
  };

  Estimator.prototype.build = function () {
    var self = this, data = this.data;
    var presets = Object.keys(data.presets).map(function (k) { return [k, k]; });
    presets.push(["custom", "Custom (edited or pasted)"]);
    LABELS.preset = "Preset";
    var modelSet = el("fieldset", { "class": "pe-set" }, [el("legend", { text: "Model" }), this.select("preset", presets)]);
    var archGrid = el("div", { "class": "pe-grid" });
    ARCH_FIELDS.forEach(function (f) { LABELS[f[0]] = f[1]; archGrid.appendChild(self.number(f[0], 1)); });
    var paste = el("textarea", { id: this.id + "-config", rows: "4", spellcheck: "false",
      placeholder: '{"model_type": "llama", "hidden_size": 4096, ...}' });
    var read = el("button", { type: "button", "class": "md-button", text: "Use this config" });
    read.addEventListener("click", function () { self.paste(paste.value); });
    var details = el("details", { "class": "pe-arch" }, [
      el("summary", { text: "Architecture: edit the numbers or paste a config.json" }), archGrid,
      el("label", { "for": paste.id, text: "config.json (the keys the model reads are kept)" }), paste, read
    ]);
    modelSet.appendChild(details);
    var opt = Object.keys(data.optimizers).map(function (k) { return [k, data.optimizers[k]]; });
    var work = el("fieldset", { "class": "pe-set" }, [el("legend", { text: "Workload" }), el("div", { "class": "pe-grid" }, [
      this.select("mode", SELECTS.mode), this.select("device", SELECTS.device), this.select("precision", SELECTS.precision),
      this.check("autocast"), this.select("finetune", SELECTS.finetune), this.number("lora_rank", 1),
      this.text("lora_targets", "peft's default, or all-linear, q_proj,v_proj"),
      this.field("lora_dropout", el("input", { type: "number", min: "0", max: "0.99", step: "0.01", inputmode: "decimal" })),
      this.select("optimizer", opt),
      this.select("quantization", SELECTS.quantization), this.select("kv_cache_dtype", SELECTS.kv_cache_dtype),
      this.select("attention", SELECTS.attention), this.number("batch_size", 1), this.number("seq_len", 1),
      this.number("num_gpus", 1), this.select("sharding", SELECTS.sharding), this.check("gradient_checkpointing"),
      this.check("offload_optimizer"), this.check("offload_params"), this.check("double_quant"),
      this.number("prefill_chunk", 1)
    ])]);
    this.controls.prefill_chunk.placeholder = "whole prompt";  // blank: the whole prompt in one pass
    this.status = el("p", { "class": "pe-status", role: "status", "aria-live": "polite" });
    this.bar = el("div", { "class": "pe-bar", "aria-hidden": "true" });
    this.table = el("table", { "class": "pe-table" });
    this.cards = el("ul", { "class": "pe-cards", "aria-label": "Common cards" });
    this.link = el("a", { "class": "pe-link", href: PREFIX, text: "Link to this estimate" });
    var note = el("p", { "class": "pe-note", text: "From the guide's memory model (the same formulas as the budget tables). " +
      "Not counted: the CUDA context (a card keeps " + data.headroom / 1e9 + " GB free for it here), " +
      "allocator slack, library workspaces." });
    var out = el("div", { "class": "pe-out" }, [this.status, this.bar, this.table, this.cards, this.link, note]);
    this.root.textContent = "";
    this.root.appendChild(el("form", { "class": "pe-form", "aria-label": "Memory calculator" }, [modelSet, work]));
    this.root.appendChild(out);
    this.root.querySelector("form").addEventListener("submit", function (e) { e.preventDefault(); });
  };

  Estimator.prototype.setPreset = function (name) {
    this.presetName = name;
    this.config = JSON.parse(JSON.stringify(this.data.presets[name]));
  };

  Estimator.prototype.load = function (query) {
    var p = new URLSearchParams(query);
    var names = Object.keys(this.data.presets);
    this.setPreset(names.indexOf(p.get("model")) >= 0 ? p.get("model") : names[0]);
    if (p.get("config")) {
      try { this.config = keep(JSON.parse(p.get("config"))); this.presetName = "custom"; } catch (e) { /* keep the preset */ }
    }
    var c = this.controls;
    Object.keys(DEFAULTS).forEach(function (k) {
      if (!c[k]) return;
      var v = p.has(k) ? p.get(k) : DEFAULTS[k];
      if (k === "precision" && !p.has(k) && p.get("mode") === "infer") v = "bf16";
      if (k === "lora_targets") v = v === null ? "" : v;  // blank: peft's default for the model family
      if (k === "prefill_chunk") v = v === null ? "" : v;  // blank: the whole prompt in one pass
      if (c[k].type === "checkbox") c[k].checked = v === true || v === "1";
      else c[k].value = String(v);
    });
    this.fillArch();
  };

  function targets(text) { // "all-linear" or "q_proj, v_proj" -> a list; blank -> null (peft's default)
    var names = text.split(",").map(function (t) { return t.trim(); }).filter(function (t) { return t; });
    return names.length ? names : null;
  }

  function keep(config) { // the keys the model reads, nothing else
    var out = {};
    CONFIG_KEYS.forEach(function (k) { if (config[k] !== undefined) out[k] = config[k]; });
    return out;
  }

  Estimator.prototype.fillArch = function () {
    var c = this.controls, config = this.config;
    c.preset.value = this.presetName;
    ARCH_FIELDS.forEach(function (f) {
      var key = f[2][config.model_type] !== undefined ? f[2][config.model_type] : f[2]["*"];
      var control = c[f[0]];
      control.disabled = key === null;
      var value = key === null ? "" : config[key];
      if (key === "n_inner" && (value === null || value === undefined)) value = 4 * config.n_embd;
      if (key === "num_key_value_heads" && (value === null || value === undefined)) value = config.num_attention_heads;
      control.value = value === undefined || value === null ? "" : String(value);
      control.parentNode.hidden = key === null;
    });
  };

  Estimator.prototype.paste = function (text) {
    try {
      var config = keep(JSON.parse(text));
      fromConfig(config, "pasted");
      this.config = config;
      this.presetName = "custom";
      this.fillArch();
      this.update(true);
    } catch (e) {
      this.status.textContent = "Cannot use that config: " + e.message;
    }
  };

  Estimator.prototype.changed = function (name) {
    if (name === "preset") {
      if (this.controls.preset.value !== "custom") this.setPreset(this.controls.preset.value);
      else this.presetName = "custom";
      this.fillArch();
    } else if (ARCH_FIELDS.some(function (f) { return f[0] === name; })) {
      var f = ARCH_FIELDS.filter(function (x) { return x[0] === name; })[0];
      var key = f[2][this.config.model_type] !== undefined ? f[2][this.config.model_type] : f[2]["*"];
      var v = Number(this.controls[name].value);
      if (key) this.config[key] = this.controls[name].value === "" ? null : v;
      this.presetName = "custom";
      this.controls.preset.value = "custom";
    } else if (name === "mode" && this.controls.mode.value === "infer" && this.controls.precision.value === "mixed") {
      this.controls.precision.value = "bf16";
    }
    this.update(true);
  };

  Estimator.prototype.workload = function () {
    var c = this.controls, w = {}, mode = c.mode.value;
    Object.keys(DEFAULTS).forEach(function (k) {
      if (!c[k]) return;
      if (mode === "infer" && TRAIN_ONLY.indexOf(k) >= 0) return;
      if (mode === "train" && INFER_ONLY.indexOf(k) >= 0) return;
      if (k === "lora_targets") w[k] = targets(c[k].value);
      else if (k === "prefill_chunk") w[k] = c[k].value === "" ? null : Number(c[k].value);
      else if (c[k].type === "checkbox") w[k] = c[k].checked;
      else if (c[k].type === "number") w[k] = c[k].value === "" ? NaN : Number(c[k].value);
      else w[k] = c[k].value;
    });
    return w;
  };

  Estimator.prototype.fragment = function (w) {
    var p = new URLSearchParams();
    if (this.presetName === "custom") p.set("config", JSON.stringify(this.config));
    else p.set("model", this.presetName);
    Object.keys(w).forEach(function (k) {
      if (w[k] === DEFAULTS[k]) return;
      p.set(k, w[k] === true ? "1" : w[k] === false ? "0" : Array.isArray(w[k]) ? w[k].join(",") : String(w[k]));
    });
    return PREFIX + p.toString();
  };

  Estimator.prototype.update = function (write) {
    var c = this.controls, mode = c.mode.value, w = this.workload();
    Object.keys(c).forEach(function (k) {
      var wrap = c[k].closest(".pe-field");
      if (!wrap || ARCH_FIELDS.some(function (f) { return f[0] === k; })) return;
      var hide = (mode === "infer" && TRAIN_ONLY.indexOf(k) >= 0) || (mode === "train" && INFER_ONLY.indexOf(k) >= 0);
      if (k === "lora_rank" || k === "lora_targets" || k === "lora_dropout") hide = hide || c.finetune.value === "full";
      if (k === "double_quant") hide = !(mode === "train" ? c.finetune.value === "qlora" : c.quantization.value === "nf4");
      wrap.hidden = hide;
    });
    var frag = this.fragment(w);
    this.link.setAttribute("href", frag);
    if (write && history.replaceState) history.replaceState(history.state, "", frag);
    var r;
    try {
      r = estimate(fromConfig(this.config, this.presetName), w);
    } catch (e) {
      this.status.textContent = "Not a setup the model covers: " + e.message;
      this.bar.textContent = ""; this.table.textContent = ""; this.cards.textContent = "";
      this.root.setAttribute("data-state", "error");
      return;
    }
    this.root.setAttribute("data-state", "ok");
    this.render(r, w);
  };

  Estimator.prototype.render = function (r, w) {
    var data = this.data, gpu = w.device !== "cpu", host = r.host_total > 0;
    var total = fmt(r.gpu_total / 1e9) + " GB";
    var cards = fits(r.gpu_total, data.cards, data.headroom);
    var sentence = (gpu ? "Per GPU: " : "RAM: ") + total + (host ? "; host RAM" + (w.num_gpus > 1 ? " per process" : "") + ": " + fmt(r.host_total / 1e9) + " GB" : "") + ". ";
    var missed = data.cards.filter(function (c) { return cards.indexOf(c) < 0; });
    if (gpu) {
      sentence += cards.length ? "Fits on " + cards.join(", ") + " GB cards" + (missed.length ? ", not on " + missed.join(", ") + " GB." : ".")
        : "Fits on none of the common cards (" + missed.join(", ") + " GB).";
    }
    this.status.textContent = sentence;
    this.bar.textContent = "";
    this.table.textContent = "";
    var head = el("tr", {}, [el("th", { scope: "col", text: "Memory" }), el("th", { scope: "col", text: (gpu ? "Per GPU" : "RAM") + " (GB)" })]);
    if (host) head.appendChild(el("th", { scope: "col", text: "Host RAM" + (w.num_gpus > 1 ? " per process" : "") + " (GB)" }));
    this.table.appendChild(el("caption", { text: "Breakdown of " + (r.arch.name === "custom" ? "the custom model" : r.arch.name) +
      " (" + fmt(r.params / 1e9) + " B parameters)" }));
    this.table.appendChild(el("thead", {}, [head]));
    var body = el("tbody"), self = this;
    r.order.forEach(function (name) {
      var t = r.terms[name];
      if (!t.gpu && !t.host) return;
      if (t.gpu && r.gpu_total) {
        self.bar.appendChild(el("span", { "class": "pe-seg pe-" + name, style: "width:" + (100 * t.gpu / r.gpu_total) + "%",
          title: data.labels[name] + ": " + fmt(t.gpu / 1e9) + " GB" }));
      }
      var row = el("tr", {}, [
        el("th", { scope: "row" }, [el("span", { "class": "pe-swatch pe-" + name, "aria-hidden": "true" }), document.createTextNode(data.labels[name])]),
        el("td", { text: t.gpu ? fmt(t.gpu / 1e9) : "–" })
      ]);
      if (host) row.appendChild(el("td", { text: t.host ? fmt(t.host / 1e9) : "–" }));
      body.appendChild(row);
    });
    var foot = el("tr", { "class": "pe-total" }, [el("th", { scope: "row", text: "Total" }), el("td", { text: fmt(r.gpu_total / 1e9) })]);
    if (host) foot.appendChild(el("td", { text: fmt(r.host_total / 1e9) }));
    body.appendChild(foot);
    this.table.appendChild(body);
    this.cards.textContent = "";
    this.cards.hidden = !gpu;
    data.cards.forEach(function (card) {
      var ok = cards.indexOf(card) >= 0;
      self.cards.appendChild(el("li", { "class": ok ? "pe-fit" : "pe-nofit" }, [
        el("span", { "aria-hidden": "true", text: ok ? "✓ " : "✗ " }),
        document.createTextNode(card + " GB: " + (ok ? "fits" : "does not fit"))
      ]));
    });
  };

  function init() {
    var roots = document.querySelectorAll(".perfdocs-estimator:not([data-ready])");
    for (var i = 0; i < roots.length; i++) {
      roots[i].setAttribute("data-ready", "");
      var e = new Estimator(roots[i]);
      if (location.hash.indexOf(PREFIX) === 0) roots[i].scrollIntoView();
      roots[i].estimator = e;
    }
  }

  window.perfdocsMemory = model;
  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(init);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

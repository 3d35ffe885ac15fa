/* oom.c — the OOM grammars (see include/read/oom.h).
 *
 * One grammar per message template of formats.md §1 and §7. Each grammar
 * has a short *locator* regex (the message's fixed head) and a handler that
 * reads the body with anchored regexes, clause by clause, so a message cut
 * anywhere (a notebook that truncated it, a log line limit) still yields
 * every clause that was printed, and clauses in any order (2.x proc_info)
 * are all read. Every pattern puts \s+ between words, so a message wrapped
 * over several lines of the window parses as if it were one line.
 *
 * Sources of the templates (formats.md gives commits and issue links):
 *   pytorch1/pytorch2   c10/cuda/CUDACachingAllocator.cpp (eras A–D), the
 *                       XPU/HIP/NPU/MLU/MUSA/DPCPP copies (§1.2, §1.5, §7.3)
 *   cudaMallocAsync     c10/cuda/CUDAMallocAsyncAllocator.cpp (§1.5)
 *   pytorch_cpu         c10/core/impl/alloc_cpu.cpp (DefaultCPUAllocator)
 *   cuda_runtime        c10/cuda/CUDAException.cpp, THC THCudaCheck,
 *                       caffe CUDA_CHECK, CUDA driver CUDA_ERROR_OUT_OF_MEMORY
 *   cublas / cudnn      c10 "CUDA error: CUBLAS_STATUS_*", "cuDNN error:",
 *                       cudnn.torch "Error in CuDNN:", caffe CHECK_EQ,
 *                       XLA stream_executor cuda_blas.cc
 *   nccl                NCCL "Cuda failure 'out of memory'"
 *   tensorflow          op_kernel.cc, bfc_allocator.cc, gpu_device.cc (§7.1)
 *   jax                 tf_allocator_adapter.cc, PJRT, stream_executor
 *                       cuda_driver.cc, TPU runtime (§7.2)
 *   mps                 aten/src/ATen/mps/MPSAllocator.mm (§7.3)
 *   ggml                ggml-cuda.cu, ggml-alloc.c (llama.cpp)
 *   issue 13            THC cublas runtime error, onnxruntime CUBLAS failure 3,
 *                       cuDNN ALLOC_FAILED text, "Unable to find a valid cuDNN
 *                       algorithm" (oom-suspected), XLA:TPU memory spaces,
 *                       accelerate find_executable_batch_size
 *   issue 24            CuPy OutOfMemoryError (cupy/cuda/memory.pyx),
 *                       PaddlePaddle ResourceExhaustedError (paddle memory/
 *                       allocation/cuda_allocator.cc), ONNX Runtime BFCArena
 *                       (core/framework/bfc_arena.cc), MXNet pooled storage
 *                       manager cudaMalloc, CUDA/HIP runtime error names
 *                       (cudaErrorMemoryAllocation, hipErrorOutOfMemory),
 *                       Level Zero / Unified Runtime OUT_OF_DEVICE_MEMORY,
 *                       TensorFlow eager "failed to allocate memory", vLLM's
 *                       KV cache checks; the texts and the threads they come
 *                       from are in tests/oom/issue24.test
 *   issue 23            ggml's Vulkan backend (ggml-vulkan.cpp
 *                       ggml_vk_create_buffer: "ggml_vulkan: Device memory
 *                       allocation of size N failed." then the
 *                       vk::SystemError's what(), "…: ErrorOutOfDeviceMemory"),
 *                       and a bare Vulkan VK_ERROR_OUT_OF_DEVICE_MEMORY;
 *                       tests/oom/issue23.test
 *   issue 31            wordings the dev cases (shared/cases/dev-causes.jsonl)
 *                       held unread, the scheduler's and the kernel's OOM
 *                       kills, and the safety net; texts and threads in
 *                       tests/oom/issue31.test:
 *                       - PyTorch torch/csrc/DataLoader.cpp (0.4 to 2.x): the
 *                         worker's SIGBUS handler, "ERROR: Unexpected bus
 *                         error encountered in worker. This might be caused
 *                         by insufficient shared memory (shm)."
 *                       - torch.cuda.OutOfMemoryError quoted in prose, and
 *                         IPython's traceback header naming it
 *                         (IPython/core/ultratb.py; the message that
 *                         follows takes the header's place, logscan.c)
 *                       - "killed" after a loading or tqdm progress line
 *                       - CTranslate2 src/cuda/utils.h CUDA_CHECK ("CUDA
 *                         failed with error " + cudaGetErrorString), 2.x-4.x
 *                       - vLLM csrc/cumem_allocator.cpp CUDA_CHECK ("CUDA
 *                         Error: %s at %s:%d"), 0.7 and later; spacing and
 *                         case variants of "CUDA error: out of memory"; c10
 *                         C10_CUDA_DRIVER_CHECK "CUDA driver error: "
 *                       - TVM src/runtime/cuda/cuda_common.h CUDA_CALL
 *                         ("CUDA: " + cudaGetErrorString, also mshadow's
 *                         stream_gpu-inl.h) and src/runtime/relax_vm/
 *                         memory_manager.cc "storage allocation failure"
 *                         (MLC LLM)
 *                       - darknet (AlexeyAB) src/convolutional_layer.c,
 *                         cuDNN 8: "Error: cuDNN isn't found FWD|BWD-data|
 *                         BWD-filter algo for convolution." (oom-suspected)
 *                       - OpenVINO src/plugins/intel_gpu/src/runtime/ocl/
 *                         ocl_engine.cpp (2023.x-2025.x): "[GPU] Exceeded max
 *                         size of memory object allocation", "… of memory
 *                         allocation: Required …", "[GPU] out of GPU resources"
 *                       - Ollama llm/server.go (v0.2.2-v0.29): "model
 *                         requires more system memory (X) than is available (Y)"
 *                       - XLA stream_executor/integrations/
 *                         tf_allocator_adapter.cc "Out of [host ]memory
 *                         while trying to allocate", and JAX 0.11's size and
 *                         allocator form
 *                       - Windows ERROR_COMMITMENT_LIMIT (1455), the page
 *                         file: Python's "[WinError 1455]", Rust's "(os
 *                         error 1455)", the English, German and Chinese text
 *                       - Linux mm/oom_kill.c ("oom-kill:constraint=…",
 *                         "[Memory cgroup o|O]ut of memory: Kill[ed] process"),
 *                         Slurm src/plugins/task/cgroup and cgroup/v1
 *                         ("Detected N oom-kill event(s)", 17.11-23.02;
 *                         "oom_kill event[s]", 23.02 on) and src/srun/launch.c
 *                         ("task N: Out Of Memory"), seff/scontrol
 *                         OUT_OF_MEMORY, Kubernetes "OOMKilled", an exit
 *                         status of 137 and torchelastic's "exitcode: -9"
 *                         (torch/distributed/elastic/multiprocessing/api.py)
 *                       - kg_oom_unrecognized: a line that says out of memory
 *                         or OOM in an error's words and no grammar reads
 */
#include "read/oom.h"
#include "read/atomtab.h"
#include "read/regex.h"
#include "model/units.h"
#include "model/util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A printed size in any of the formats we read: c10 format_size
 * ("0 bytes", "20.00 MiB"), MPS ("9.07 GB"), TF HumanReadableNumBytes
 * ("1.97GiB", "0B"), stream-executor ("3.39G"). The unit is mandatory so a
 * number cut before its unit is never read as bytes. */
#define SZ "(\\d+(?:\\.\\d+)?\\s?(?:bytes|[KMGTP]i?B|[KMGTP]\\b|B\\b))"
#define DEVP "(CUDA|HIP|XPU|NPU|MLU|MUSA|DPCPP)"
/* PaddlePaddle's string::HumanReadableSize: "%f" and B, kB, MB, GB, … */
#define PSZ "(\\d+(?:\\.\\d+)?(?:[kKMGTP]B|B))"

enum rx_id {
	/* locators */
	RX_PT_HEAD, RX_PT_BARE, RX_ASYNC_HEAD, RX_CPU, RX_CUDART,
	RX_STATUS_CHECK, RX_STATUS, RX_CUBLAS_SE, RX_NCCL,
	RX_TF_OOM, RX_TF_BFC, RX_TF_EIGEN, RX_TF_LIMIT,
	RX_JAX_OOM, RX_JAX_PJRT, RX_JAX_SE, RX_JAX_TPU, RX_MPS,
	RX_GGML, RX_GGML_BUF, RX_GGML_CHECK, RX_TH_RAM, RX_KILLED, RX_SHELL_KILLED, RX_PROSE_KILLED, RX_PY_MEMERR, RX_SHM_WORKER, RX_BAD_ALLOC,
	RX_TF_CUDNN_INIT,
	RX_CUBLAS_THC, RX_CUBLAS_FAIL, RX_CUDNN_ALLOC, RX_CUDNN_ALGO, RX_XLA_SPACE, RX_XLA_AUTOTUNE,
	RX_ACCEL_BATCH, RX_CUPY, RX_CUPY_OLD, RX_PADDLE, RX_ORT_ARENA, RX_MXNET,
	RX_ERRNAME, RX_L0, RX_TF_EAGER, RX_VLLM_KV, RX_TGI_PREFILL, RX_VLLM_SEQ, RX_VLLM_START, RX_VLLM_WARMUP, RX_SGLANG_KV, RX_HF_DISPATCH,
	RX_GGML_VK, RX_VK_OOM,
	RX_PT_OOMERR, RX_IPY_OOM, RX_SHM_BUS, RX_SHM_ALLOC, RX_BAR_KILLED, RX_DARKNET, RX_TVM_STORAGE,
	RX_OPENVINO, RX_OLLAMA, RX_WIN_PAGEFILE, RX_OOM_KILL, RX_SLURM_OOM, RX_SLURM_STATE,
	RX_K8S_OOM, RX_EXIT_KILL,
	/* the safety net (kg_oom_unrecognized) */
	RX_UNK_PHRASE, RX_UNK_ERROR, RX_UNK_NEGATED, RX_UNK_REPORT,
	/* body pieces (matched anchored) */
	RX_PT1_GPU, RX_PT1_CLAUSE, RX_PT1_CLOSE,
	RX_PT2_GPU, RX_PT2_PROC, RX_PT2_SELF, RX_PT2_NOPID, RX_PT2_ALLOWED,
	RX_PT2_OFALLOC, RX_ASYNC_LINE, RX_NCCL_FAIL,
	RX_TF_SHAPE, RX_TF_TAIL, RX_TF_BFC_BODY, RX_PJRT_EXACT,
	NRX
};

static const char *const rx_src[NRX] = {
	[RX_PT_HEAD] =
		"(?:\\b" DEVP "\\s+out\\s+of\\s+memory\\.\\s+)?"
		"Tried\\s+to\\s+allocate\\s+(?:" SZ "|(more\\s+than\\s+1EB\\s+memory\\.?))",
	/* A device OOM with no numbers: XPU's first text, or a message cut
	 * right after its head. Only at a line start or after "…: " (an
	 * exception class or log prefix), and only when the line ends there,
	 * so prose mentioning CUDA OOM does not count. */
	[RX_PT_BARE] =
		"(?m)(?:^|(?<=: ))[ \\t]*" DEVP "\\s+out\\s+of\\s+memory"
		"(?:(,\\s+please\\s+use\\s+`?empty_cache`?\\s+to\\s+release\\s+all"
		"\\s+unoccupied\\s+cached\\s+memory\\.?)|\\.?(?=[ \\t]*$))",
	[RX_ASYNC_HEAD] =
		"Allocation\\s+on\\s+device\\s+(\\d+)\\s+would\\s+exceed\\s+allowed\\s+memory\\."
		"(?:\\s*\\(out\\s+of\\s+memory\\))?",
	[RX_CPU] =
		"(?:\\[enforce\\s+fail\\s+at\\s+alloc_cpu\\.cpp:\\d+\\]\\s*\\.?\\s*)?"
		"DefaultCPUAllocator:\\s+(?:can't\\s+allocate\\s+memory|not\\s+enough\\s+memory):"
		"\\s+you\\s+tried\\s+to\\s+allocate\\s+(\\d+)\\s+bytes\\.?"
		"(?:\\s+Error\\s+code\\s+\\d+\\s+\\([^)\\n]*\\))?(?:\\s+Buy\\s+new\\s+RAM!)?",
	/* Groups: 1 THC, 2 THC cuda runtime error (2), 3 the backend of
	 * "<CUDA|HIP> [driver ]error: out of memory" in any letter case and
	 * spacing (c10 C10_CUDA_CHECK and C10_CUDA_DRIVER_CHECK print
	 * "CUDA error: " and "CUDA driver error: "; vLLM's cumem allocator
	 * "CUDA Error: "; old PaddlePaddle "Cuda Error: "), 4 caffe, 5 a bare
	 * THC tail, 6 "CUDA failed with error [2] out of memory" with 7 the
	 * number (cumm/spconv tensorview prints it; CTranslate2's CUDA_CHECK,
	 * src/cuda/utils.h, prints cudaGetErrorString right after "error "),
	 * 8 the driver's name (after "failed call to cu…: ", or XLA's
	 * "Failed to load in-memory CUBIN: ", the driver loading a compiled
	 * kernel module outside XLA's pool), 9 a CHECK on cudaSuccess whose
	 * message is "CUDA: " + cudaGetErrorString (TVM's CUDA_CALL,
	 * src/runtime/cuda/cuda_common.h; mshadow's stream_gpu-inl.h), 10 the
	 * device */
	[RX_CUDART] =
		"(?:(THCudaCheck\\s+FAIL\\s+file=\\S+\\s+line=\\d+\\s+error=2\\s+:\\s+out\\s+of\\s+memory)"
		"|(cuda\\s+runtime\\s+error\\s+\\(2\\)\\s+:\\s+out\\s+of\\s+memory)"
		"|\\b((?i:cuda|hip))\\s+(?:driver\\s+)?(?i:error)\\s*:\\s*out\\s+of\\s+memory"
		"|(Check\\s+failed:\\s+error\\s+==\\s+cudaSuccess\\s+\\(2\\s+vs\\.\\s+0\\)\\s+out\\s+of\\s+memory)"
		"|(error=2\\s+:\\s+out\\s+of\\s+memory)"
		"|((?i:cuda)\\s+failed\\s+with\\s+error\\s+(2\\s+)?out\\s+of\\s+memory)"
		"|((?:(?:failed\\s+call\\s+to\\s+cu\\w+|Failed\\s+to\\s+load\\s+in-memory\\s+(?:CUBIN|PTX)):\\s+)?"
		"CUDA_ERROR_OUT_OF_MEMORY(?::\\s+out\\s+of\\s+memory)?)"
		"|(Check\\s+failed:\\s+[^\\n]{0,160}?\\bcudaSuccess\\b[^\\n]{0,80}?:\\s+CUDA:\\s+out\\s+of\\s+memory))"
		"(?:\\s+current\\s+device:\\s+(\\d+))?",
	/* caffe CHECK_EQ(status, *_STATUS_SUCCESS) << *GetErrorString(status) */
	[RX_STATUS_CHECK] =
		"Check\\s+failed:\\s+\\w+\\s+==\\s+(CUDNN|CUBLAS)_STATUS_SUCCESS\\s+\\((\\d+)\\s+vs\\.\\s+0\\)"
		"(?:\\s*((?:CUDNN|CUBLAS)_STATUS_[A-Z][A-Z_]*))?",
	[RX_STATUS] =
		"(?:(CUDA|HIP|cuDNN|cuBLAS)\\s+error:\\s+|(Error\\s+in\\s+CuDNN:\\s+)"
		"|(Could\\s+not\\s+create\\s+cudnn\\s+handle:\\s+))?"
		"\\b((CUDNN|CUBLAS)_STATUS_(?!SUCCESS\\b)[A-Z][A-Z_]*)\\b"
		"(?:\\.?\\s+when\\s+calling\\s+`[^`\\n]*`?|\\s+\\(\\w+\\))?",
	[RX_CUBLAS_SE] =
		"failed\\s+to\\s+create\\s+cublas\\s+handle:\\s+"
		"(?:the\\s+resource\\s+allocation\\s+failed|(CUBLAS_STATUS_[A-Z][A-Z_]*))",
	[RX_NCCL] =
		"(ncclUnhandledCudaError)|(?:NCCL\\s+WARN\\s+)?Cuda\\s+failure\\s+'out\\s+of\\s+memory'",
	[RX_TF_OOM] =
		"OOM\\s+when\\s+allocating\\s+tensor\\s+(?:with|of)\\s+shape\\s*\\[",
	[RX_TF_BFC] =
		"Allocator\\s+\\(([^)\\s]+)\\)\\s+ran\\s+out\\s+of\\s+memory\\s+trying\\s+to\\s+allocate\\s+" SZ,
	[RX_TF_EIGEN] =
		"EigenAllocator\\s+for\\s+GPU\\s+ran\\s+out\\s+of\\s+memory\\s+when\\s+allocating\\s+(\\d+)\\b"
		"\\.?(?:\\s+See\\s+error\\s+logs\\s+for\\s+more\\s+detailed\\s+info\\.)?",
	[RX_TF_LIMIT] =
		"(?:RESOURCE_EXHAUSTED:\\s+)?Allocating\\s+(\\d+)\\s+bytes\\s+exceeds\\s+the\\s+memory"
		"\\s+limit\\s+of\\s+(\\d+)\\s+bytes\\.?",
	/* XLA stream_executor/integrations/tf_allocator_adapter.cc
	 * MemoryAllocationError: "Out of [host ]memory while trying to
	 * allocate N bytes." (1 host memory, 2 the bytes); JAX 0.11 prints the
	 * size and the allocator ("… allocate 4.00GiB with allocator
	 * GPU_0_bfc on device 0.", testdata/gpu/jax-oom.log): 3 the size,
	 * 4 the allocator, 5 the device */
	[RX_JAX_OOM] =
		"(?:(?:RESOURCE_EXHAUSTED|Resource\\s+exhausted):\\s+)?Out\\s+of\\s+(host\\s+)?memory\\s+"
		"(?:while\\s+trying\\s+to\\s+allocate|allocating)\\s+(?:(\\d+)\\s+bytes|" SZ
		"(?:\\s+with\\s+allocator\\s+(\\w+))?(?:\\s+on\\s+device\\s+(\\d+))?)\\.?",
	[RX_JAX_PJRT] =
		"(?:(?:RESOURCE_EXHAUSTED|Resource\\s+exhausted):\\s+)?Failed\\s+to\\s+allocate\\s+request"
		"\\s+for\\s+" SZ "\\s*(?:\\((\\d+)B\\))?\\s+on\\s+device\\s+ordinal\\s+(\\d+)",
	[RX_JAX_SE] =
		"failed\\s+to\\s+allocate\\s+" SZ "\\s+\\((\\d+)\\s+bytes\\)"
		"(?:\\s+from\\s+device(?::\\s+CUDA_ERROR_OUT_OF_MEMORY(?::\\s+out\\s+of\\s+memory)?)?)?",
	[RX_JAX_TPU] =
		"(?:Error\\s+allocating\\s+device\\s+buffer:\\s+)?Attempting\\s+to\\s+allocate\\s+" SZ
		"\\.\\s+That\\s+was\\s+not\\s+possible\\.(?:\\s+There\\s+are\\s+" SZ "\\s+free\\.?)?",
	[RX_MPS] =
		"MPS\\s+backend\\s+out\\s+of\\s+memory(?:\\s+\\(MPS\\s+allocated:\\s+" SZ
		"(?:,\\s+other\\s+allocations:\\s+" SZ "(?:,\\s+max\\s+allowed:\\s+" SZ ")?"
		"(?:\\)(?:\\.\\s+Tried\\s+to\\s+allocate\\s+" SZ
		"(?:\\s+on\\s+(?:private|shared)\\s+pool\\.?)?)?)?)?)?",
	[RX_GGML] =
		"allocating\\s+" SZ "\\s+on\\s+device\\s+(\\d+):\\s+cudaMalloc\\s+failed:\\s+out\\s+of\\s+memory",
	[RX_GGML_BUF] =
		"failed\\s+to\\s+allocate\\s+(\\w+?)(\\d*)\\s+buffer\\s+of\\s+size\\s+(\\d+)",
	/* ggml-cuda.cu's CUDA_CHECK of 2023 (llama.cpp before its
	 * ggml_cuda_error; Ollama 0.1.x): fprintf(stderr, "CUDA error %d at
	 * %s:%d: %s\n", err, __FILE__, __LINE__, cudaGetErrorString(err)),
	 * cudaErrorMemoryAllocation being 2; ROCm builds print the same with
	 * hipErrorOutOfMemory (2) */
	[RX_GGML_CHECK] =
		"(CUDA|HIP)\\s+error\\s+2\\s+at\\s+(\\S+?):(\\d+):\\s+out\\s+of\\s+memory",
	/* ggml-vulkan.cpp ggml_vk_create_buffer's catch: the size in bytes */
	[RX_GGML_VK] =
		"ggml_vulkan:\\s+Device\\s+memory\\s+allocation\\s+of\\s+size\\s+(\\d+)\\s+failed\\.?",
	/* Vulkan-Hpp's vk::OutOfDeviceMemoryError what(): "<call>: ErrorOutOfDeviceMemory" */
	[RX_VK_OOM] =
		"(?:vk::\\w+::\\w+:\\s+)?ErrorOutOfDeviceMemory\\b",
	/* THC (PyTorch 0.4–1.0): THCublasCheck in aten/src/THC/THCGeneral.cpp */
	[RX_CUBLAS_THC] =
		"cublas\\s+runtime\\s+error\\s*:\\s+resource\\s+allocation\\s+failed"
		"(?:\\s+at\\s+\\S+THCGeneral\\.cpp:\\d+)?",
	/* onnxruntime CUBLAS_CALL_THROW (core/providers/cuda/cuda_call.cc):
	 * "CUBLAS failure 3: the resource allocation failed ; GPU=0 ; …" */
	[RX_CUBLAS_FAIL] =
		"CUBLAS\\s+failure\\s+3\\s*:\\s+the\\s+resource\\s+allocation\\s+failed"
		"(?:\\s*;\\s*GPU=(\\d+))?",
	/* cudnnGetErrorString(CUDNN_STATUS_ALLOC_FAILED), cuDNN 8/9 wording */
	[RX_CUDNN_ALLOC] =
		"Resource\\s+allocation\\s+failed\\s+inside\\s+the\\s+cuDNN\\s+library\\.?",
	/* aten/src/ATen/native/cudnn/Conv_v7.cpp: every algorithm's workspace
	 * failed to allocate (or none is supported): an OOM in disguise */
	[RX_CUDNN_ALGO] =
		"Unable\\s+to\\s+find\\s+a\\s+valid\\s+cuDNN\\s+algorithm\\s+to\\s+run\\s+convolution",
	/* XLA:TPU compiler (jax, torch_xla, TF on TPU): a memory space (hbm,
	 * vmem, smem, …) over its capacity */
	/* XLA's GPU convolution autotuner (gpu_conv_algorithm_picker.cc) could
	 * not get the workspace to try cuDNN's algorithms: an OOM raised at
	 * compile time, before any of the program's own tensors */
	[RX_XLA_AUTOTUNE] =
		"RESOURCE_EXHAUSTED:\\s+Failed\\s+to\\s+determine\\s+best\\s+cudnn\\s+convolution\\s+algorithm(?:\\s+for:?)?",
	[RX_XLA_SPACE] =
		"(?:RESOURCE_EXHAUSTED:\\s+)?(?:XLA:TPU\\s+compile\\s+permanent\\s+error\\.\\s+)?"
		"Ran\\s+out\\s+of\\s+memory\\s+in\\s+memory\\s+space\\s+(\\w+)"
		"(?:\\.\\s+Used\\s+" SZ "\\s+of\\s+" SZ "\\s+\\w+\\.?"
		"(?:\\s+Exceeded\\s+\\w+\\s+capacity\\s+by\\s+" SZ "\\.?)?)?",
	/* accelerate.utils.memory.find_executable_batch_size: halved the batch
	 * on every OOM down to zero */
	[RX_ACCEL_BATCH] =
		"No\\s+executable\\s+batch\\s+size\\s+found,?\\s+reached\\s+zero\\.?",

	/* CuPy memory.pyx OutOfMemoryError: 'Out of memory allocating {:,}
	 * bytes (allocated so far: {:,} bytes[, limit set to: {:,} bytes]).'
	 * The request is comma-grouped (JAX prints the same words with a bare
	 * integer), or followed by the "allocated so far" clause. */
	[RX_CUPY] =
		"Out\\s+of\\s+memory\\s+allocating\\s+(\\d{1,3}(?:,\\d{3})+|\\d+(?=\\s+bytes\\s+\\(allocated))\\s+bytes"
		"(?:\\s+\\(allocated\\s+so\\s+far:\\s+[\\d,]+\\s+bytes(?:,\\s+limit\\s+set\\s+to:\\s+([\\d,]+)\\s+bytes)?\\)\\.?)?",
	/* CuPy before v4 (cupy PR #314): "out of memory to allocate N bytes
	 * (total N bytes)" */
	[RX_CUPY_OLD] =
		"out\\s+of\\s+memory\\s+to\\s+allocate\\s+(\\d+)\\s+bytes(?:\\s+\\(total\\s+\\d+\\s+bytes\\))?",
	/* PaddlePaddle cuda_allocator.cc: sizes by string::HumanReadableSize
	 * ("98.000244MB", "39.250000kB", "0.000000B", powers of 1024); the
	 * "has been allocated" clause is absent in older releases */
	[RX_PADDLE] =
		"Out\\s+of\\s+memory\\s+error\\s+on\\s+GPU\\s+(\\d+)\\.\\s+Cannot\\s+allocate\\s+" PSZ
		"\\s+memory\\s+on\\s+GPU\\s+\\d+,\\s+(?:" PSZ "\\s+memory\\s+has\\s+been\\s+allocated\\s+and\\s+)?"
		"available\\s+memory\\s+is\\s+only\\s+" PSZ "\\.?",
	/* onnxruntime core/framework/bfc_arena.cc (the CUDA and the CPU arena) */
	[RX_ORT_ARENA] =
		"Failed\\s+to\\s+allocate\\s+memory\\s+for\\s+requested\\s+buffer\\s+of\\s+size\\s+(\\d+)",
	/* MXNet src/storage/pooled_storage_manager.h */
	[RX_MXNET] = "cudaMalloc\\s+(retry\\s+)?failed:\\s+out\\s+of\\s+memory",
	/* the runtime's own error names: cudaGetErrorName / hipGetErrorName
	 * (CuPy's CUDARuntimeError, ROCm builds of PyTorch, HIP programs).
	 * Not PyTorch's pointer under its own "CUDA error: out of memory"
	 * (c10/cuda/CUDAException.cpp, PyTorch 2.9 and later: "Search for
	 * `cudaErrorMemoryAllocation' in https://docs.nvidia.com/… for more
	 * information."), which is the same error again (seen on PyTorch
	 * 2.11: testdata/gpu/context-full.log) */
	[RX_ERRNAME] =
		"(?<!Search for `)(?<!Search for )\\b(?:(cudaErrorMemoryAllocation)|(hipErrorOutOfMemory))\\b'?(?:\\s*[(:,]\\s*(?:\\d+\\)\\s*)?out\\s+of\\s+memory\\)?)?",
	/* Level Zero and SYCL Unified Runtime (Intel GPUs: PyTorch XPU, IPEX,
	 * oneAPI programs): "Native API returns: -N (UR_RESULT_ERROR_…)" */
	[RX_L0] = "\\b(?:UR_RESULT|ZE_RESULT)_ERROR_OUT_OF_DEVICE_MEMORY\\b\\)?",
	/* TensorFlow 2 eager: an op's output could not be allocated */
	[RX_TF_EAGER] =
		"(?:ResourceExhaustedError|RESOURCE_EXHAUSTED|Resource\\s+exhausted):\\s+failed\\s+to\\s+allocate"
		"\\s+memory(?:\\s+\\[Op:(\\w+)\\])?",
	/* vLLM worker/kv_cache_utils: the memory left after the model and the
	 * profiled activations holds no KV-cache block. The exception line
	 * only ("ValueError: "), not the raise statement a traceback quotes. */
	/* text-generation-inference's warmup: the largest prefill batch it
	 * will accept does not fit beside the weights
	 * (server/text_generation_server/models/flash_causal_lm.py warmup:
	 * "Not enough memory to handle {N} prefill tokens. You need to
	 * decrease `--max-batch-prefill-tokens`"; the router wraps it in
	 * "Warmup(Generation(…))"; TGI#755) */
	[RX_TGI_PREFILL] =
		"Not\\s+enough\\s+memory\\s+to\\s+handle\\s+(\\d+)\\s+prefill\\s+tokens\\.?"
		"(?:\\s+You\\s+need\\s+to\\s+decrease\\s+`--max-batch-prefill-tokens`)?",
	[RX_VLLM_KV] =
		"ValueError:\\s+No\\s+available\\s+memory\\s+for\\s+the\\s+cache\\s+blocks\\.?"
		"(?:\\s+Try\\s+increasing\\s+`gpu_memory_utilization`\\s+when\\s+initializing\\s+the\\s+engine\\.)?"
		/* the message as str() or repr() of the exception quotes it: whole,
		 * which the raise statement (split into "…blocks. " "Try …") is not */
		"|(?<=['\"])No\\s+available\\s+memory\\s+for\\s+the\\s+cache\\s+blocks\\.\\s+Try\\s+increasing"
		"\\s+`gpu_memory_utilization`\\s+when\\s+initializing\\s+the\\s+engine\\.",

	/* vLLM (worker.py, kv_cache_utils.py): the KV cache that fits in the
	 * memory left holds fewer tokens than one sequence of max_model_len.
	 * The raise statement a traceback quotes has {max_model_len}, not a
	 * number, so only the message matches. */
	[RX_VLLM_SEQ] =
		"(?:The\\s+model's\\s+max\\s+seq\\s+len\\s+\\((\\d+)\\)\\s+is\\s+larger\\s+than\\s+the\\s+maximum"
		"\\s+number\\s+of\\s+tokens\\s+that\\s+can\\s+be\\s+stored\\s+in\\s+KV\\s+cache\\s+\\((\\d+)\\)\\.?"
		/* the V1 engine's wording of the same check (vllm/v1/core/
		 * kv_cache_utils.py check_enough_kv_cache_memory, 0.7-0.11; before
		 * 0.8.5 "GB", "KV Cache memory" and "is" "needed" without a space) */
		"|To\\s+serve\\s+at\\s+least\\s+one\\s+request\\s+with\\s+the\\s+models?'s\\s+max\\s+seq\\s+len"
		"\\s+\\((\\d+)\\),\\s+\\(?([0-9.]+)\\s+Gi?B\\s+KV\\s+cache\\s+is\\s*needed,\\s+which\\s+is\\s+larger"
		"\\s+than\\s+the\\s+available\\s+KV\\s+[Cc]ache\\s+memory\\s+\\(([0-9.]+)\\s+Gi?B\\)\\.?"
		"(?:\\s+Based\\s+on\\s+the\\s+available\\s+memory,\\s+the\\s+estimated\\s+maximum\\s+model\\s+length"
		"\\s+is\\s+\\d+\\.)?)"
		/* both wordings' advice */
		"(?:\\s+Try\\s+increasing\\s+`?gpu_memory_utilization`?\\s+or\\s+decreasing\\s+`?max_model_len`?"
		"\\s+when\\s+initializing\\s+the\\s+engine\\.?)?",

	/* vLLM V1 (vllm/v1/worker/gpu_worker.py init_device, 0.9-; the check
	 * moved to vllm/v1/worker/utils.py request_memory later): at start-up,
	 * before the model is loaded, the device must have
	 * gpu_memory_utilization × its memory free: "Free memory on device
	 * [cuda:N] (F/T GiB) on startup is less than desired GPU memory
	 * utilization (U, R GiB)." (the device 1, its index 2, F 3, T 4, their
	 * unit 5, U 6, R 7, its unit 8) */
	[RX_VLLM_START] =
		"Free\\s+memory\\s+on\\s+device(?:\\s+(\\w+)(?::(\\d+))?)?\\s+\\(([0-9]+(?:\\.[0-9]+)?)/([0-9]+(?:\\.[0-9]+)?)\\s*(GiB|GB)\\)"
		"\\s+on\\s+startup\\s+is\\s+less\\s+than\\s+desired\\s+GPU\\s+memory\\s+utilization\\s+"
		"\\(([0-9]+(?:\\.[0-9]+)?),\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(GiB|GB)\\)\\.?"
		"(?:\\s+Decrease\\s+GPU\\s+memory\\s+utilization\\s+or\\s+reduce\\s+GPU\\s+memory\\s+used\\s+by"
		"\\s+other\\s+processes\\.?)?",

	/* vLLM V1 (vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run,
	 * _dummy_pooler_run): a CUDA OOM while the engine warms up the sampler
	 * (or pooler) with max_num_seqs requests at once, after the weights and
	 * the KV cache took their share (the number: 1) */
	[RX_VLLM_WARMUP] =
		"CUDA\\s+out\\s+of\\s+memory\\s+occurred\\s+when\\s+warming\\s+up\\s+(?:sampler|pooler)"
		"(?:\\s+\\(task='\\w+'\\))?\\s+with\\s+(\\d+)\\s+dummy\\s+requests\\.?"
		"(?:\\s+Please\\s+try\\s+lowering\\s+`max_num_seqs`\\s+or\\s+`gpu_memory_utilization`\\s+when"
		"\\s+initializing\\s+the\\s+engine\\.?)?",

	/* SGLang (python/sglang/srt/model_executor/model_runner.py, later
	 * pool_configurator.py MemoryPoolConfig): after the weights, the share
	 * mem_fraction_static keeps for weights and KV cache holds no token of
	 * KV cache; newer versions add the value (1) */
	[RX_SGLANG_KV] =
		"Not\\s+enough\\s+memory\\.\\s+Please\\s+try\\s+to\\s+increase\\s+--mem-fraction-static\\.?"
		"(?:\\s+Current\\s+value:\\s+mem_fraction_static=([0-9]+(?:\\.[0-9]+)?))?",

	/* transformers' bitsandbytes quantizers (quantizers/quantizer_bnb_4bit.py
	 * and _8bit.py validate_environment; modeling_utils.py before 4.36): a
	 * device_map that puts a quantized module on the CPU or the disk, as
	 * device_map="auto" does with what the GPU's free memory cannot hold.
	 * The exception line, or the message with its advice, also wrapped
	 * (before 4.36 it was printed from an indented triple-quoted string);
	 * not the raise statement, whose string is split after "fit the " */
	[RX_HF_DISPATCH] =
		"(?:(?:ValueError:\\s+)?Some\\s+modules\\s+are\\s+dispatched\\s+on\\s+the\\s+CPU\\s+or\\s+the\\s+disk\\.\\s+Make"
		"\\s+sure\\s+you\\s+have\\s+enough\\s+GPU\\s+RAM\\s+to\\s+fit\\s+the\\s+quantized(?:\\s+model\\.?)?"
		"|ValueError:\\s+Some\\s+modules\\s+are\\s+dispatched\\s+on\\s+the\\s+CPU\\s+or\\s+the\\s+disk\\b\\.?)",

	/* TH THGeneral.cpp / c10 alloc_cpu.cpp before 1.5: "not enough memory:
	 * you tried to allocate %dGB. Buy new RAM!" (bytes in later texts) */
	[RX_TH_RAM] =
		"(?:Torch:\\s+)?not\\s+enough\\s+memory:\\s+you\\s+tried\\s+to\\s+allocate\\s+(\\d+)"
		"\\s*(bytes|GB)\\.?\\s+Buy\\s+new\\s+RAM!",
	/* SIGKILL, almost always the kernel's OOM killer on a training node:
	 * torch.utils.data's worker message, the kernel's own line (dmesg),
	 * bash's "Killed" for a killed child (alone on its line, after a
	 * progress bar, or after the job's pid), multiprocessing/torchelastic
	 * signal texts. */
	[RX_KILLED] =
		"(DataLoader\\s+worker\\s+\\(pid\\s*[^)\\n]*\\)\\s+is\\s+killed\\s+by\\s+signal:\\s+Killed\\.?)"
		"|((?:Memory\\s+cgroup\\s+out|Out)\\s+of\\s+memory(?:\\s+\\(oom_kill_allocating_task\\))?:"
		"\\s+Kill(?:ed)?\\s+process\\s+\\d+[^\\n]*)"
		"|(?m:(?:(?<=\\])|(?<=\\r)|(?<=\\d\\s)|^)[ \\t]*(Killed)(?:[ \\t]+\\S[^\\n]*)?$)"
		"|(died\\s+with\\s+<Signals\\.SIGKILL:\\s+9>\\.?|Signal\\s+9\\s+\\(SIGKILL\\)\\s+received\\s+by\\s+PID\\s+\\d+)",
	/* zsh's job line for a child killed by SIGKILL: "[1]    2843557 killed
	 *     ./train.py" (bash prints "Killed", above); the job number may
	 * have been taken for a rank prefix and stripped */
	[RX_SHELL_KILLED] =
		"(?m:^[ \\t]*(?:\\[\\d+\\][ \\t]+(?:[+-][ \\t]+)?\\d+|\\d{3,})[ \\t]+(killed)(?:[ \\t]+\\S[^\\n]*)?$)",
	/* a person telling the kill in prose: "it just says killed after the
	 * model loads", "the process gets killed during the transcription",
	 * "still get killed": the shell's "Killed" retold, which on a machine
	 * running a model is the kernel's OOM killer; not a kill the sentence
	 * gives another cause ("killed by signal", "by the scheduler", "after
	 * 2 hours", a time limit: the grammars above read PyTorch's worker
	 * message).
	 * Kept only where no message is read (kg_oom.prose) */
	[RX_PROSE_KILLED] =
		"(?i:(?<!not |n't |never )\\b(?:(?:gets?|got|getting|gotten|was|were|is|are|being|been)\\s+killed\\b"
		"|(?:says?|said|prints?|printed|shows?|showed|outputs?|displays?)\\s+[\"'`]?killed\\b)"
		"(?!\\s+by\\s+(?!(?:the\\s+)?(?:oom|out[ -]of[ -]memory|kernel|linux|os)\\b))"
		"(?![^.\\n]{0,40}\\b(?:time[ -]?limit|timeout|timed\\s+out|hours?|minutes?|scheduler|slurm|preempt\\w*|ctrl)))",
	/* Python's MemoryError, the exception line ending a traceback: CPython
	 * raises it when the host's allocator (malloc) refuses memory
	 * (Objects/obmalloc.c, PyErr_NoMemory); NumPy's subclass names the
	 * array ("numpy.core._exceptions._ArrayMemoryError: Unable to allocate
	 * 3.20 GiB for an array with shape (…) and data type float64",
	 * numpy/core/src/multiarray/ctors.c, sizes in binary units). Host RAM,
	 * not a device's: torch.cuda.OutOfMemoryError is another class. */
	[RX_PY_MEMERR] =
		"(?m:^[ \\t]*\\K(?:[A-Za-z_][\\w.]*\\.)?(?:_ArrayMemoryError|MemoryError)\\b"
		"(?::[ \\t]*(?:Unable\\s+to\\s+allocate\\s+" SZ "\\s+for\\s+an\\s+array[^\\n]*|[^\\n]*))?[ \\t]*$)",
	/* torch.utils.data/_utils/signal_handling.py: a worker killed by
	 * SIGBUS, which PyTorch itself explains as the workers running out of
	 * shared memory (/dev/shm, host RAM) */
	[RX_SHM_WORKER] =
		"DataLoader\\s+worker\\s+\\(pid\\s*[^)\\n]*\\)\\s+is\\s+killed\\s+by\\s+signal:\\s+Bus\\s+error\\.?"
		"(?:\\s+It\\s+is\\s+possible\\s+that\\s+dataloader's\\s+workers\\s+are\\s+out\\s+of\\s+shared\\s+memory\\.?"
		"(?:\\s+Please\\s+try\\s+to\\s+raise\\s+your\\s+shared\\s+memory\\s+limit\\.?)?)?",
	/* C++ operator new could not get host memory: libstdc++'s
	 * "terminate called after throwing an instance of 'std::bad_alloc'
	 * what(): std::bad_alloc", or the exception as Python re-raises it */
	[RX_BAD_ALLOC] =
		"terminate\\s+called\\s+after\\s+throwing\\s+an\\s+instance\\s+of\\s+'std::bad_alloc'"
		"(?:\\s+what\\(\\):\\s+std::bad_alloc)?"
		"|(?:[A-Za-z]+Error|what\\(\\)):\\s+std::bad_alloc",
	/* TensorFlow: cuDNN could not create its handle (TF's BFC pool took the
	 * device first, or another process did) */
	[RX_TF_CUDNN_INIT] =
		"Failed\\s+to\\s+get\\s+convolution\\s+algorithm\\.\\s+This\\s+is\\s+probably\\s+because"
		"\\s+cuDNN\\s+failed\\s+to\\s+initialize",

	/* torch.cuda.OutOfMemoryError's message quoted in prose: the class
	 * names it, whatever follows ("… out of memory` at the first step") */
	[RX_PT_OOMERR] = "(?<=OutOfMemoryError: )" DEVP "\\s+out\\s+of\\s+memory\\.?",
	/* IPython's traceback header (IPython/core/ultratb.py: the exception
	 * class padded to 42 columns, then "Traceback (most recent call
	 * last)"): names the OOM even when the paste stops before the message */
	[RX_IPY_OOM] =
		"(?m)^[ \\t]*((?:torch\\.(?:cuda\\.)?)?OutOfMemoryError)[ \\t]{2,}Traceback\\s+\\(most\\s+recent\\s+call\\s+last\\)",
	/* torch/csrc/DataLoader.cpp: the worker's own SIGBUS handler writes
	 * this to stderr before it dies (PyTorch 0.4 and later) */
	[RX_SHM_BUS] =
		"(?:ERROR:\\s+)?Unexpected\\s+bus\\s+error\\s+encountered\\s+in\\s+worker\\.?"
		"(?:\\s+This\\s+might\\s+be\\s+caused\\s+by\\s+insufficient\\s+shared\\s+memory\\s+\\(shm\\)\\.?)?",
	/* aten/src/ATen/MapAllocator.cpp: a tensor PyTorch shares between
	 * processes (a DataLoader worker's batch) is a file in /dev/shm named
	 * /torch_PID_N; when the tmpfs has no room, posix_fallocate fails
	 * ("unable to allocate shared memory(shm) for file <…>: ERRNO (N)",
	 * PyTorch 1.10 and later; seen as "Resource temporarily unavailable
	 * (11)" on PyTorch 2.11, testdata/gpu/shm-worker.log) or, before
	 * fallocate, the write or ftruncate does ("unable to write to file
	 * <…>", "unable to stretch file <…> to the right size") */
	[RX_SHM_ALLOC] =
		"unable\\s+to\\s+(?:allocate\\s+shared\\s+memory\\s*\\(shm\\)\\s+for|write\\s+to|stretch)"
		"\\s+file\\s+</torch_[^>\\s]*>(?:\\s+to\\s+the\\s+right\\s+size)?"
		"(?::[ \\t]*[^\\n(]*\\(\\d+\\))?",
	/* "killed" after a loading or tqdm progress line: the shell's report of
	 * a child killed while it loaded (bash "Killed" right after a bar is
	 * RX_KILLED), or the reporter's copy of it ("Loading checkpoint shards:
	 * 52% … killed") */
	[RX_BAR_KILLED] =
		"(?m)^(?=[^\\n]*(?:[Ll]oading|%\\||\\d(?:it/s|s/it)\\]))[^\\n]*?\\d{1,3}(?:\\.\\d+)?\\s?%[^\\n]*?"
		"(?<![\\w-])([Kk]illed)\\b(?!\\s+by\\b)[^\\n]*",
	/* darknet (AlexeyAB) src/convolutional_layer.c cudnn_convolutional_setup,
	 * cuDNN 8: no algorithm's workspace fits in cudaMemGetInfo's free
	 * memory */
	[RX_DARKNET] =
		"Error:\\s+cuDNN\\s+isn't\\s+found\\s+(FWD|BWD-data|BWD-filter)\\s+algo\\s+for\\s+convolution\\.?",
	/* TVM src/runtime/relax_vm/memory_manager.cc (and vm/memory_manager.cc)
	 * StorageObj::AllocNDArray: a tensor does not fit the storage the
	 * compiled memory plan allocated (MLC LLM) */
	[RX_TVM_STORAGE] =
		"storage\\s+allocation\\s+failure,\\s+attempted\\s+to\\s+allocate\\s+(\\d+)\\s+at\\s+offset\\s+(\\d+)"
		"\\s+in\\s+region\\s+that\\s+is\\s+(\\d+)\\s*bytes",
	/* OpenVINO src/plugins/intel_gpu/src/runtime/ocl/ocl_engine.cpp
	 * check_allocatable / allocate_memory: one buffer over the device's
	 * max alloc size (1, 2), the device's memory used up (3 requested,
	 * 4 already occupied, 5 the memory size), or the OpenCL allocation
	 * failing ("out of GPU resources") */
	[RX_OPENVINO] =
		"(?:\\[GPU\\]\\s+)?Exceeded\\s+max\\s+size\\s+of\\s+memory\\s+object\\s+allocation"
		"(?::\\s+[Rr]equested\\s+(\\d+)\\s+bytes,?\\s+but\\s+max\\s+alloc\\s+size"
		"(?:\\s+supported\\s+by\\s+device)?\\s+is\\s+(\\d+)\\s+bytes\\.?)?"
		"|(?:\\[GPU\\]\\s+)?Exceeded\\s+max\\s+size\\s+of\\s+memory\\s+allocation"
		"(?::\\s+Required\\s+(\\d+)\\s+bytes,\\s+already\\s+occupied\\s*:\\s*(\\d+)\\s+bytes,"
		"\\s+but\\s+available\\s+memory\\s+size\\s+is\\s+(\\d+)\\s+bytes)?"
		"|\\[GPU\\]\\s+out\\s+of\\s+GPU\\s+resources",
	/* Ollama llm/server.go (v0.2.2 to v0.29): the model's host-side share
	 * over free RAM + swap, sizes by format.HumanBytes2 */
	[RX_OLLAMA] =
		"model\\s+requires\\s+more\\s+system\\s+memory\\s+\\(" SZ "\\)\\s+than\\s+is\\s+available\\s+\\(" SZ "\\)",
	/* Windows ERROR_COMMITMENT_LIMIT (1455, "System Error Codes
	 * 1300-1699"): the commit charge reached RAM + page file. Python's
	 * OSError prints "[WinError 1455]", Rust's io::Error "(os error
	 * 1455)"; a DLL load failure quotes only the localized text (English,
	 * German, Chinese here) */
	[RX_WIN_PAGEFILE] =
		"(?:\\[WinError\\s+1455\\]\\s*)?"
		"(?:The\\s+paging\\s+file\\s+is\\s+too\\s+small\\s+for\\s+this\\s+operation\\s+to\\s+complete\\.?"
		"|Die\\s+Auslagerungsdatei\\s+ist\\s+zu\\s+klein,\\s+um\\s+diesen\\s+Vorgang\\s+durchzuführen\\.?"
		"|页面文件太小，无法完成操作。?)(?:\\s*\\(os\\s+error\\s+1455\\))?"
		"|\\[WinError\\s+1455\\]|\\(os\\s+error\\s+1455\\)",
	/* Linux mm/oom_kill.c dump_oom_summary (4.19 and later): the OOM
	 * killer's one-line summary ("oom-kill:constraint=CONSTRAINT_MEMCG,…,
	 * task=python,pid=N,uid=N"); the "Killed process" line follows */
	[RX_OOM_KILL] = "oom-kill:constraint=\\w+[^\\n]*",
	/* Slurm task/cgroup (task_cgroup_memory.c, cgroup_v1.c): the step's
	 * memory cgroup counted OOM kills. 17.11: "… in step J.S cgroup.";
	 * 21.08: "… in StepId=J.S[ cgroup]. Some of your processes may have
	 * been killed by the cgroup out-of-memory handler."; 23.02: "Detected
	 * N oom_kill event[s] in StepId=J.S. Some of the step tasks have been
	 * OOM Killed." */
	[RX_SLURM_OOM] =
		"(?:slurmstepd(?:-[\\w.-]+)?:\\s+error:\\s+)?Detected\\s+(\\d+)\\s+oom[-_]kill\\s+events?(?:\\(s\\))?"
		"(?:\\s+in\\s+(?:step\\s+)?\\S+?(?:\\s+cgroup)?\\.(?=\\s|$)"
		"(?:\\s+Some\\s+of\\s+(?:your\\s+processes\\s+may\\s+have\\s+been\\s+killed\\s+by\\s+the\\s+cgroup"
		"\\s+out-of-memory\\s+handler|the\\s+step\\s+tasks\\s+have\\s+been\\s+OOM\\s+Killed)\\.?)?)?",
	/* srun (src/srun/launch.c): a task ended by the OOM signal; seff and
	 * scontrol print the job state OUT_OF_MEMORY */
	[RX_SLURM_STATE] =
		"(?:srun:\\s+error:\\s+)?\\S+:\\s+tasks?\\s+[\\d,\\-\\[\\]]+:\\s+Out\\s+Of\\s+Memory"
		"|\\b(?:State:|JobState=)[ \\t]*OUT_OF_MEMORY\\b",
	/* Kubernetes: the container runtime reports a container its memory
	 * cgroup killed as reason OOMKilled (kubectl describe pod, get pods,
	 * the pod's status JSON) */
	[RX_K8S_OOM] = "(?:[Rr]eason:[ \\t]*\"?)?\\bOOMKilled\\b",
	/* a process ended by SIGKILL (9) as a status: 128 + 9 = 137 from a
	 * shell, Docker, kubectl exec or an IDE; torchelastic's "exitcode: -9"
	 * (torch/distributed/elastic/multiprocessing/api.py); Go's os/exec
	 * ExitError for a child killed by SIGKILL, "signal: killed" (Ollama's
	 * "llama runner process has terminated: signal: killed") */
	[RX_EXIT_KILL] =
		"\\bexit(?:ed)?\\s+(?:with\\s+)?(?:code|status)\\s*:?\\s*137\\b"
		"(?:\\s+\\(interrupted\\s+by\\s+signal\\s+9:\\s+SIGKILL\\))?"
		"|\\b(?:failed\\s+\\()?exitcode:\\s+-9\\b\\)?"
		/* DeepSpeed's launcher for a rank killed by SIGKILL
		 * (deepspeed/launcher/launch.py: "… exits with return code =
		 * -9"; DeepSpeed#4239) */
		"|\\bexits\\s+with\\s+return\\s+code\\s*=\\s*-9\\b"
		"|(?:[\\w ]*process\\s+has\\s+terminated:\\s+)?\\bsignal:\\s+killed\\b",

	/* the safety net: a phrase that says out of memory, the words of an
	 * error around it, and the forms that say there was none */
	[RX_UNK_PHRASE] = "(?i:out[ _-]?of[ _-]?(?:(?:GPU|CUDA|video|graphics|device)\\s+)?memory)|\\bOOM(?:s|ed|ing)?\\b",
	[RX_UNK_ERROR] =
		"\\b\\w*(?:Error|Exception)s?\\b|\\b(?i:errors?|exceptions?|fatal|failed|failure|aborted|panic)\\b"
		"|\\bCRITICAL\\b|what\\(\\):|terminate\\s+called",
	[RX_UNK_NEGATED] =
		"(?i:\\b(?:no|not|without|zero|0)\\s+(?:\\w+\\s+)?(?:out[ _-]?of[ _-]?memory|oom))"
		"|(?i:n't\\s+(?:\\w+\\s+){0,2}?(?:out[ _-]?of[ _-]?memory|oom))"
		"|(?i:(?:out[ _-]?of[ _-]?memory|\\boom)\\w*\\s*(?:errors?|trials?|count|retries|events?)?\\s*[:=]\\s*"
		"(?:0|false|none|no)\\b)",
	/* a person reporting the error in prose: "I keep getting CUDA out of
	 * memory", "we got out of memory", "I've encountered out of memory".
	 * A job's own log does not speak in the first person; an issue's text
	 * does (kg_oom.prose: kept only where no message is read) */
	[RX_UNK_REPORT] =
		"(?i:\\b(?:i|we)(?:'m|'ve|\\s+am|\\s+are|\\s+have|\\s+had|\\s+keep|\\s+kept|\\s+always|\\s+still"
		"|\\s+now|\\s+also|\\s+often|\\s+sometimes|\\s+constantly|\\s+then|\\s+can|\\s+will|\\s+would)?"
		"\\s+(?:get|gets|got|getting|hit|hitting|encounter(?:ed|ing)?|met|meet|see|saw|seeing|face[ds]?|facing"
		"|run\\s+into|ran\\s+into|running\\s+into|receive[ds]?|receiving|experienc(?:e|ed|ing)|run\\s+out|ran\\s+out|running\\s+out)\\b)"
		/* … and in the third person, told as what happened: "everything
		 * OOMs", "the training job runs out of GPU memory (OOM)", "all
		 * models meet OOM", "it started to show OOM", "going OOM"; not
		 * advice or a possibility ("to avoid OOM", "this may cause OOM":
		 * no such verb follows its subject) */
		"|\\bOOM(?:s|ed|ing)\\b|(?i:(?<!avoid )(?<!avoiding )(?<!prevent )(?<!not )\\b(?:go|goes|going|went|gone)\\s+OOM\\b)"
		"|(?i:\\b(?:it|this|that|everything|the|my|our|all|each|every)\\s+(?:[\\w-]+\\s+){0,3}?"
		"(?:gets?|got|hits?|encounters?|encountered|meets?|met|throws?|threw|gives?|gave|shows?|showed|reported|runs?\\s+out|ran\\s+out"
		"|crash(?:e[sd])?\\s+with|started\\s+to\\s+(?:show|get|throw|hit|give)|start(?:s|ed)?\\s+(?:getting|showing|throwing|hitting))\\b)",

	[RX_PT1_GPU] = "\\s*\\(\\s*(?:GPU|NPU|MLU|MUSA|XPU)\\s+(\\d+)",
	[RX_PT1_CLAUSE] =
		"\\s*;\\s*" SZ "\\s+(total\\s+capacity|already\\s+allocated|free\\b|allowed\\b"
		"|reserved\\s+in\\s+total(?:\\s+by\\s+PyTorch)?|cached\\b|[A-Za-z][A-Za-z ]*[A-Za-z])",
	[RX_PT1_CLOSE] = "\\s*;?\\s*\\)",
	[RX_PT2_GPU] =
		"\\.\\s+GPU\\s+(\\d+)(?:\\s+has\\s+a\\s+total\\s+capaci?ty\\s+of\\s+" SZ
		"(?:\\s+of\\s+which\\s+" SZ "\\s+is\\s+free)?\\.?)?",
	[RX_PT2_PROC] =
		"\\s+Process\\s+(\\d+)\\s+has\\s+" SZ "(?:\\s+memory(?:\\s+in(?:\\s+use\\.?)?)?)?",
	[RX_PT2_SELF] =
		"\\s+Including\\s+non-PyTorch\\s+memory,\\s+this\\s+process\\s+has\\s+" SZ
		"(?:\\s+memory(?:\\s+in(?:\\s+use\\.?)?)?)?",
	[RX_PT2_NOPID] =
		"\\s+Process\\s+has\\s+" SZ "(?:\\s+memory(?:\\s+in(?:\\s+use\\.?)?)?)?",
	[RX_PT2_ALLOWED] = "\\s+" SZ "\\s+allowed;?",
	[RX_PT2_OFALLOC] =
		"\\s+Of\\s+the\\s+allocated\\s+memory\\s+" SZ "\\s+is\\s+allocated\\s+by\\s+PyTorch"
		"(?:,\\s+with\\s+" SZ "(?:\\s+allocated\\s+in\\s+private\\s+pools"
		"(?:\\s+\\(e\\.g\\.,\\s+\\w+\\s+Graphs\\))?)?)?"
		"(?:,?\\s+and\\s+" SZ "\\s+is\\s+reserved(?:\\s+by(?:\\s+PyTorch(?:\\s+but"
		"(?:\\s+unallocated)?)?)?)?)?\\.?",
	[RX_ASYNC_LINE] =
		"\\s*(Currently\\s+allocated|Requested|Device\\s+limit|Free\\s+\\(according\\s+to\\s+CUDA\\)"
		"|PyTorch\\s+limit\\s+\\(set\\s+by\\s+user-supplied\\s+memory\\s+fraction\\))\\s*:\\s*" SZ,
	[RX_NCCL_FAIL] = "Cuda\\s+failure\\s+'out\\s+of\\s+memory'",
	[RX_TF_SHAPE] =
		"([0-9,\\s]*)\\](?:\\s+and\\s+type\\s+(\\w+))?(?:\\s+on\\s+(\\S+))?"
		"(?:\\s+by\\s+allocator\\s+(\\w+))?",
	[RX_TF_TAIL] =
		"\\s*(?:\\[Op:[^\\]\\n]*\\](?:\\s+name:[ \\t]*\\S*)?|\\[\\[[^\\n]*?\\]\\]"
		"|Hint:\\s+If\\s+you\\s+want\\s+to\\s+see\\s+a\\s+list\\s+of\\s+allocated\\s+tensors"
		"\\s+when\\s+OOM\\s+happens,\\s+add\\s+report_tensor_allocations_upon_oom\\s+to"
		"\\s+RunOptions\\s+for\\s+current\\s+allocation\\s+info\\.)",
	[RX_TF_BFC_BODY] =
		"(?:\\s*\\(rounded\\s+to\\s+(\\d+)\\)\\s*(?:requested\\s+by\\s+op\\s+\\S+)?)?"
		"(?:\\s+with\\s+freed_by_count=(\\d+)\\.?(?:\\s+The\\s+caller\\s+indicates\\s+that\\s+this"
		"\\s+is\\s+not\\s+a\\s+failure[^\\n]*)?)?"
		"(?:\\.?\\s*If\\s+the\\s+cause\\s+is\\s+memory\\s+fragmentation[^\\n]*)?"
		"(?:\\.?\\s*Current\\s+allocation\\s+summary\\s+follows\\.?)?",
	[RX_PJRT_EXACT] = "\\((\\d+)B\\)\\s+on\\s+device\\s+ordinal\\s+(\\d+)",
};

static pcre2_code *rx[NRX];

/* Body pieces that only ever match at a given offset. */
static bool rx_anchored(int id)
{
	return (id >= RX_PT1_GPU && id <= RX_ASYNC_LINE) || id == RX_TF_SHAPE ||
	       id == RX_TF_TAIL || id == RX_TF_BFC_BODY;
}

/* Compiles rx[id] (JIT-compiled when hot: rx_get). Returns NULL with ec/eo set when
 * the pattern does not compile. */
static pcre2_code *rx_compile(int id, int *ec, PCRE2_SIZE *eo)
{
	rx[id] = pcre2_compile((PCRE2_SPTR)rx_src[id], PCRE2_ZERO_TERMINATED,
	                       rx_anchored(id) ? PCRE2_ANCHORED : 0, ec, eo, NULL);
	return rx[id];
}

/* rx[id] for a match on `subject` bytes (kg_regex_use), compiled the
 * first time a grammar needs it: most logs reach a
 * few grammars or none, and JIT-compiling all of them up front was most of
 * a small log's run time. The patterns are literals and kg_oom_init (run by
 * the tests) compiles them all, so one that fails here is a bug: abort. */
static pcre2_code *rx_get(int id, size_t subject)
{
	static uint32_t uses[NRX];
	int ec;
	PCRE2_SIZE eo;
	if (!rx[id] && !rx_compile(id, &ec, &eo))
		abort();
	kg_regex_use(rx[id], &uses[id], subject);
	return rx[id];
}

int kg_oom_init(kg_error *err)
{
	for (int i = 0; i < NRX; i++) {
		int ec;
		PCRE2_SIZE eo;
		if (!rx[i] && !rx_compile(i, &ec, &eo)) {
			PCRE2_UCHAR msg[160];
			pcre2_get_error_message(ec, msg, sizeof msg);
			kg_oom_fini();
			return kg_fail(err, "oom grammar %d: %s at offset %zu", i, (char *)msg, (size_t)eo);
		}
	}
	return 0;
}

void kg_oom_fini(void)
{
	for (int i = 0; i < NRX; i++) {
		pcre2_code_free(rx[i]);
		rx[i] = NULL;
	}
}

/* ---- trigger literals ------------------------------------------------ */

/* Every grammar's head contains one of these, verbatim and case-sensitive
 * (the texts are fixed strings in their sources). */
/* (the list is in read/atomtab.h, shared with the prefilter's placement) */
#define KG_TRIGGER_LIT(lit) lit,
static const char *const triggers[] = {KG_OOM_TRIGGERS(KG_TRIGGER_LIT)};
#undef KG_TRIGGER_LIT

static bool has_lit(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit)) != NULL;
}

#define NTRIG (sizeof triggers / sizeof triggers[0])

/* For each byte, the set of triggers that start with it (bit i = triggers[i],
 * at most 64 triggers); built once. One pass over the line then looks only at bytes that can
 * begin a trigger, instead of one memmem pass per trigger. */
static uint64_t first_byte[256];
_Static_assert(NTRIG <= 64, "first_byte holds a bit per trigger");
static size_t trig_len[NTRIG];

static void build_first_byte(void)
{
	for (size_t i = 0; i < NTRIG; i++) {
		first_byte[(unsigned char)triggers[i][0]] |= UINT64_C(1) << i;
		trig_len[i] = strlen(triggers[i]);
	}
}

const char *const *kg_oom_triggers(size_t *n)
{
	*n = NTRIG;
	return triggers;
}

bool kg_oom_candidate(const char *line, size_t n)
{
	if (!trig_len[0])
		build_first_byte();
	const unsigned char *s = (const unsigned char *)line;
	/* every trigger is at least 3 bytes long ("OOM") */
	for (size_t i = 0; i + 3 <= n; i++) {
		uint64_t m = first_byte[s[i]];
		while (m) {
			int t = __builtin_ctzll(m);
			m &= m - 1;
			if (trig_len[t] <= n - i && s[i + 1] == (unsigned char)triggers[t][1] &&
			    memcmp(s + i, triggers[t], trig_len[t]) == 0)
				return true;
		}
	}
	return false;
}

/* ---- matching helpers ------------------------------------------------ */

#define MAXCAP 16

typedef struct match {
	size_t v[2 * MAXCAP]; /* PCRE2_UNSET for unset groups */
} match;

typedef struct ctx {
	const char *s;
	size_t n;
	pcre2_match_data *md;
	kg_oom *o;
} ctx;

/* Runs rx[id] on s[0..n) from off; anchored at off when asked. Copies the
 * ovector into *m. */
static bool run(ctx *c, int id, size_t n, size_t off, bool anchored, match *m)
{
	/* Body pieces are compiled anchored (JIT cannot anchor at match
	 * time); pcre2_match runs the JIT code whenever there is some. */
	if (off > n || anchored != rx_anchored(id))
		return false;
	int rc = pcre2_match(rx_get(id, anchored ? 0 : n - off), (PCRE2_SPTR)c->s, n, off, 0, c->md, NULL);
	if (rc < 0)
		return false;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(c->md);
	uint32_t pairs = pcre2_get_ovector_count(c->md);
	for (uint32_t i = 0; i < MAXCAP; i++) {
		m->v[2 * i] = i < pairs && i < (uint32_t)rc ? ov[2 * i] : PCRE2_UNSET;
		m->v[2 * i + 1] = i < pairs && i < (uint32_t)rc ? ov[2 * i + 1] : PCRE2_UNSET;
	}
	return true;
}

/* Anchored match of a body piece at pos over the whole window. */
static bool at(ctx *c, int id, size_t pos, match *m)
{
	return run(c, id, c->n, pos, true, m);
}

static bool set(const match *m, int g)
{
	return m->v[2 * g] != PCRE2_UNSET;
}

static size_t mstart(const match *m) { return m->v[0]; }
static size_t mend(const match *m) { return m->v[1]; }

/* Capture g as a size, or not known; *overflow (when not NULL) says
 * whether it failed for being 2^63 bytes or more (kg_size_parse's ERANGE:
 * c10 prints a request wrapped from a negative size as "17179869184.00
 * GiB", 2^64 bytes). */
static kg_size cap_size_ex(const ctx *c, const match *m, int g, bool *overflow)
{
	kg_size z = kg_size_none();
	if (overflow)
		*overflow = false;
	if (!set(m, g))
		return z;
	size_t used;
	errno = 0;
	if (kg_size_parse(c->s + m->v[2 * g], m->v[2 * g + 1] - m->v[2 * g], &z, &used) < 0) {
		if (overflow)
			*overflow = errno == ERANGE;
		return kg_size_none();
	}
	return z;
}

static kg_size cap_size(const ctx *c, const match *m, int g)
{
	return cap_size_ex(c, m, g, NULL);
}

static int64_t cap_int(const ctx *c, const match *m, int g)
{
	if (!set(m, g))
		return KG_NONE;
	int64_t v = 0;
	for (size_t i = m->v[2 * g]; i < m->v[2 * g + 1]; i++) {
		if (c->s[i] < '0' || c->s[i] > '9' || v > (INT64_MAX - 9) / 10)
			return KG_NONE;
		v = v * 10 + (c->s[i] - '0');
	}
	return m->v[2 * g + 1] > m->v[2 * g] ? v : KG_NONE;
}

/* An exact byte count from a capture, as a kg_size. */
static kg_size cap_bytes(const ctx *c, const match *m, int g)
{
	int64_t v = cap_int(c, m, g);
	return v == KG_NONE ? kg_size_none() : kg_size_exact(v);
}

static bool cap_is(const ctx *c, const match *m, int g, const char *lit)
{
	size_t L = strlen(lit);
	return set(m, g) && m->v[2 * g + 1] - m->v[2 * g] == L &&
	       memcmp(c->s + m->v[2 * g], lit, L) == 0;
}

/* Does the capture start with the words of lit (whitespace runs in the
 * text match one space in lit)? */
static bool cap_words(const ctx *c, const match *m, int g, const char *lit)
{
	if (!set(m, g))
		return false;
	size_t i = m->v[2 * g], e = m->v[2 * g + 1];
	for (const char *p = lit; *p; p++) {
		if (*p == ' ') {
			if (i >= e || !strchr(" \t\r\n", c->s[i]))
				return false;
			while (i < e && strchr(" \t\r\n", c->s[i]))
				i++;
		} else {
			if (i >= e || c->s[i] != *p)
				return false;
			i++;
		}
	}
	return true;
}

/* End of the k-th line after the one holding pos (or the window's end). */
static size_t lines_after(const ctx *c, size_t pos, int k)
{
	for (int i = 0; i <= k && pos < c->n; i++) {
		const char *nl = memchr(c->s + pos + (i > 0), '\n', c->n - pos - (i > 0));
		pos = nl ? (size_t)(nl - c->s) : c->n;
	}
	return pos;
}

static bool window_has(const ctx *c, const char *lit)
{
	return has_lit(c->s, c->n, lit);
}

/* ---- fixed hint sentences, matched word by word ------------------------
 *
 * The advice sentences that follow an allocator OOM are consumed word by
 * word so that the message's byte range covers them even when they are cut
 * or wrapped (formats.md §1.2: accept every hint or none). A token may list
 * alternatives separated by '|'; "@URL" is any word starting "(http". */
static const char *const hints[] = {
	"If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
	"fragmentation. See documentation for Memory Management and "
	"PYTORCH_CUDA_ALLOC_CONF|PYTORCH_HIP_ALLOC_CONF",
	"If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
	"fragmentation. See documentation for Memory Management and "
	"PYTORCH_CUDA_ALLOC_CONF|PYTORCH_HIP_ALLOC_CONF",
	"If reserved but unallocated memory is large try setting "
	"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True|PYTORCH_HIP_ALLOC_CONF=expandable_segments:True "
	"to avoid fragmentation. See documentation for Memory Management @URL",
	"Please use `empty_cache`|empty_cache to release all unoccupied cached memory.",
	("Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory "
	 "allocations (may cause system failure)."),
};

static bool is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

/* Does text word w[0..wn) equal one of the '|'-separated alternatives in
 * tok[0..tn)? */
static bool token_is(const char *w, size_t wn, const char *tok, size_t tn)
{
	if (tn == 4 && memcmp(tok, "@URL", 4) == 0)
		return wn >= 5 && memcmp(w, "(http", 5) == 0;
	const char *p = tok, *end = tok + tn;
	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		size_t L = (size_t)((bar ? bar : end) - p);
		if (L == wn && memcmp(p, w, wn) == 0)
			return true;
		p += L + 1;
	}
	return false;
}

/* Returns the end of the longest run of hint words starting at pos (after
 * whitespace), or pos when none matches. */
static size_t match_hint(const char *s, size_t n, size_t pos)
{
	size_t best = pos;
	for (size_t h = 0; h < sizeof hints / sizeof hints[0]; h++) {
		const char *t = hints[h];
		size_t i = pos, end = pos;
		while (*t) {
			while (*t == ' ')
				t++;
			const char *te = t;
			while (*te && *te != ' ')
				te++;
			size_t j = i;
			while (j < n && is_ws(s[j]))
				j++;
			size_t w = j;
			while (w < n && !is_ws(s[w]))
				w++;
			if (w == j || !token_is(s + j, w - j, t, (size_t)(te - t)))
				break;
			i = end = w;
			t = te;
		}
		if (end > best)
			best = end;
	}
	return best;
}

/* ---- result helpers -------------------------------------------------- */

static void oom_init(kg_oom *o)
{
	memset(o, 0, sizeof *o);
	kg_memory_free(&o->mem); /* sets every size to "not stated" */
	o->kind = "oom";
	o->device_index = KG_NONE;
}

void kg_oom_free(kg_oom *o)
{
	if (!o)
		return;
	kg_memory_free(&o->mem);
	if (o->tensor) {
		free(o->tensor->shape);
		free(o->tensor);
	}
	free(o->status);
	oom_init(o);
}

/* What a grammar found: layout, framework and backend (static strings). */
static void ident(kg_oom *o, const char *family, const char *framework, const char *device_type)
{
	o->family = family;
	o->framework = framework;
	o->device_type = device_type;
}

/* Narrows s[*b..*e) past its blanks: spaces and tabs at both ends, a
 * carriage return at the end. */
static void trim_blanks(const char *s, size_t *b, size_t *e)
{
	while (*b < *e && (s[*b] == ' ' || s[*b] == '\t'))
		(*b)++;
	while (*e > *b && (s[*e - 1] == ' ' || s[*e - 1] == '\t' || s[*e - 1] == '\r'))
		(*e)--;
}

/* Closes a match: the message runs from the locator's start to end. */
static bool done(kg_oom *o, const match *h, size_t end)
{
	o->start = mstart(h);
	o->end = end;
	return true;
}

static void add_proc(kg_memory *m, int64_t pid, kg_size in_use)
{
	m->procs = kg_realloc(m->procs, (m->nprocs + 1) * sizeof *m->procs);
	m->procs[m->nprocs].pid = pid;
	m->procs[m->nprocs].in_use = in_use;
	m->nprocs++;
}

static const char *device_type_of(const ctx *c, const match *m, int g)
{
	static const struct {
		const char *text;
		enum kg_device_type type;
	} names[] = {
		{"CUDA", KG_DEVICE_CUDA}, {"HIP", KG_DEVICE_HIP}, {"XPU", KG_DEVICE_XPU},
		{"NPU", KG_DEVICE_NPU}, {"MLU", KG_DEVICE_MLU}, {"MUSA", KG_DEVICE_MUSA},
		{"DPCPP", KG_DEVICE_XPU},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (cap_is(c, m, g, names[i].text))
			return kg_device_types.words[names[i].type];
	return NULL;
}

/* The framework that printed a status or CUDA-error text, from cues in the
 * window (the texts themselves are shared by several frameworks). */
static const char *framework_cue(const ctx *c, const char *fallback)
{
	if (window_has(c, "XlaRuntimeError")) /* jaxlib's exception type */
		return KG_FRAMEWORK_WORD(JAX);
	if (window_has(c, "ggml"))
		return KG_FRAMEWORK_WORD(GGML);
	if (window_has(c, ".lua:") || window_has(c, "luajit"))
		return KG_FRAMEWORK_WORD(TORCH7);
	if (window_has(c, "jax") || window_has(c, "Jax"))
		return KG_FRAMEWORK_WORD(JAX);
	return fallback;
}

/* ---- PyTorch caching allocator (formats.md §1.2, §1.5, §7.3) --------- */

static size_t pt1_body(ctx *c, size_t pos)
{
	kg_memory *mem = &c->o->mem;
	match m;
	while (at(c, RX_PT1_CLAUSE, pos, &m)) {
		kg_size v = cap_size(c, &m, 1);
		if (cap_words(c, &m, 2, "total capacity"))
			mem->total_capacity = v;
		else if (cap_words(c, &m, 2, "already allocated"))
			mem->allocated = v;
		else if (cap_is(c, &m, 2, "free"))
			mem->free = v;
		else if (cap_is(c, &m, 2, "allowed"))
			mem->allowed = v;
		else if (cap_words(c, &m, 2, "reserved in total"))
			mem->reserved = v;
		else if (cap_is(c, &m, 2, "cached"))
			mem->reserved_unallocated = v; /* 1.0–1.3: reserved − allocated */
		/* other labels (torch_npu "current active") are read over */
		pos = mend(&m);
	}
	if (at(c, RX_PT1_CLOSE, pos, &m))
		pos = mend(&m);
	return pos;
}

static size_t pt2_body(ctx *c, size_t pos)
{
	kg_memory *mem = &c->o->mem;
	match m;
	for (;;) {
		if (at(c, RX_PT2_PROC, pos, &m)) {
			add_proc(mem, cap_int(c, &m, 1), cap_size(c, &m, 2));
		} else if (at(c, RX_PT2_SELF, pos, &m) || at(c, RX_PT2_NOPID, pos, &m)) {
			mem->process_in_use = cap_size(c, &m, 1);
		} else if (at(c, RX_PT2_ALLOWED, pos, &m)) {
			mem->allowed = cap_size(c, &m, 1);
		} else if (at(c, RX_PT2_OFALLOC, pos, &m)) {
			mem->allocated = cap_size(c, &m, 1);
			mem->private_pools = cap_size(c, &m, 2);
			mem->reserved_unallocated = cap_size(c, &m, 3);
		} else {
			break;
		}
		pos = mend(&m);
	}
	return pos;
}

static bool g_pytorch(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	bool headed = set(h, 1);
	o->framework = KG_FRAMEWORK_WORD(PYTORCH);
	o->device_type = device_type_of(c, h, 1);
	size_t pos = mend(h);
	match m;
	if (set(h, 3)) {
		/* "Tried to allocate more than 1EB memory." — a lower bound */
		o->family = KG_FAMILY_WORD(OTHER);
		o->mem.requested = (kg_size){INT64_C(1) << 60, INT64_C(1) << 60, INT64_MAX};
	} else {
		o->mem.requested = cap_size_ex(c, h, 2, &o->mem.requested_overflow);
		if (at(c, RX_PT1_GPU, pos, &m)) {
			o->family = KG_FAMILY_WORD(PYTORCH1);
			o->device_index = cap_int(c, &m, 1);
			pos = pt1_body(c, mend(&m));
		} else if (at(c, RX_PT2_GPU, pos, &m)) {
			o->family = KG_FAMILY_WORD(PYTORCH2);
			o->device_index = cap_int(c, &m, 1);
			o->mem.total_capacity = cap_size(c, &m, 2);
			o->mem.free = cap_size(c, &m, 3);
			pos = pt2_body(c, mend(&m));
		} else if (!headed) {
			return false; /* a bare "Tried to allocate X" is not enough */
		} else if (pos < c->n && c->s[pos] == '.') {
			o->family = KG_FAMILY_WORD(PYTORCH2); /* cut after "Tried to allocate X." */
			pos++;
		} else {
			o->family = KG_FAMILY_WORD(PYTORCH1); /* cut before " (GPU N; …" */
		}
	}
	return done(o, h, match_hint(c->s, c->n, pos));
}

static bool g_pytorch_bare(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(PYTORCH), device_type_of(c, h, 1));
	/* the locator allows leading blanks; the message starts at the device */
	o->start = h->v[2];
	o->end = mend(h);
	return true;
}

/* cudaMallocAsync backend: a head line and "Label : size" lines. */
static bool g_async(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	kg_memory *mem = &o->mem;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(CUDA));
	o->device_index = cap_int(c, h, 1);
	size_t pos = mend(h);
	match m;
	while (at(c, RX_ASYNC_LINE, pos, &m)) {
		kg_size v = cap_size(c, &m, 2);
		if (cap_words(c, &m, 1, "Currently allocated"))
			mem->allocated = v;
		else if (cap_words(c, &m, 1, "Requested"))
			mem->requested = v;
		else if (cap_words(c, &m, 1, "Device limit"))
			mem->total_capacity = v;
		else if (cap_words(c, &m, 1, "Free"))
			mem->free = v;
		else
			mem->allowed = v;
		pos = mend(&m);
	}
	return done(o, h, pos);
}

static bool g_cpu(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(PYTORCH_CPU), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(CPU));
	o->mem.requested = cap_bytes(c, h, 1);
	return done(o, h, mend(h));
}

static bool g_th_ram(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(PYTORCH_CPU), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(CPU));
	int64_t n = cap_int(c, h, 1);
	if (n != KG_NONE) {
		if (cap_is(c, h, 2, "GB"))  /* TH prints integer GiB (n >> 30) */
			n <<= 30;
		o->mem.requested = kg_size_exact(n);
	}
	return done(o, h, mend(h));
}

static bool g_killed(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OOM_KILLER), NULL, NULL);
	/* "Killed" alone: start the message at the word, not at a bar */
	match m = *h;
	if (set(h, 3))
		m.v[0] = h->v[6];
	/* the kernel's kill inside a memory cgroup (a container's or a
	 * scheduler's limit), mem_cgroup_out_of_memory() */
	if (set(h, 2) && cap_words(c, h, 2, "Memory cgroup out of memory"))
		o->status = kg_strdup("Memory cgroup out of memory");
	return done(o, &m, mend(h));
}

/* zsh "[1]  PID killed  CMD": the message starts at the word */
static bool g_shell_killed(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OOM_KILLER), NULL, NULL);
	match m = *h;
	m.v[0] = h->v[2];
	return done(o, &m, mend(h));
}

/* A kill told in prose (RX_PROSE_KILLED): the OOM killer's incident, on a
 * person's sentence (kept only where no message is read) */
static bool g_prose_killed(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OOM_KILLER), NULL, NULL);
	o->prose = true;
	/* the sentence is the message: the match's line, its blanks trimmed */
	size_t b = mstart(h), e = mend(h);
	while (b > 0 && c->s[b - 1] != '\n')
		b--;
	while (e < c->n && c->s[e] != '\n')
		e++;
	trim_blanks(c->s, &b, &e);
	o->start = b;
	o->end = e;
	return true;
}

/* Python's MemoryError (RX_PY_MEMERR): host memory; NumPy's gives the
 * array's size */
static bool g_py_memerr(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), NULL, KG_DEVICE_WORD(CPU));
	o->mem.requested = cap_size(c, h, 1);
	return done(o, h, mend(h)); /* from the class name: \K skips the blanks */
}

/* A DataLoader worker's SIGBUS: out of shared memory, on the host */
static bool g_shm_worker(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(CPU));
	return done(o, h, mend(h));
}

/* std::bad_alloc, the Windows page file: host memory, whatever the program */
static bool g_bad_alloc(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), NULL, KG_DEVICE_WORD(CPU));
	return done(o, h, mend(h));
}

static bool g_tf_cudnn_init(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUDNN), KG_FRAMEWORK_WORD(TENSORFLOW), KG_DEVICE_WORD(CUDA));
	o->status = kg_strdup("cuDNN failed to initialize");
	return done(o, h, mend(h));
}

/* ---- CUDA runtime / driver errors ------------------------------------ */

static bool g_cudart(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	o->family = KG_FAMILY_WORD(CUDA_RUNTIME);
	bool hip = set(h, 3) && h->v[7] - h->v[6] == 3 &&
		   strncasecmp(c->s + h->v[6], "hip", 3) == 0; /* not vocabulary: log text */
	o->device_type = hip ? KG_DEVICE_WORD(HIP) : KG_DEVICE_WORD(CUDA);
	if (set(h, 1) || set(h, 2) || set(h, 5)) {
		o->framework = KG_FRAMEWORK_WORD(PYTORCH); /* THC: THCudaCheck / cuda runtime error (2) */
	} else if (set(h, 3)) {
		/* c10 C10_CUDA_CHECK prints exactly "CUDA error: " (HIP builds
		 * "HIP error: "); other spellings are other programs' */
		bool c10 = mend(h) - mstart(h) > 11 && c->s[mstart(h) + (hip ? 3 : 4)] == ' ' &&
			   (memcmp(c->s + mstart(h), "CUDA error: ", 12) == 0 ||
			    memcmp(c->s + mstart(h), "HIP error: ", 11) == 0 ||
			    memcmp(c->s + mstart(h), "CUDA driver error: ", 19) == 0);
		o->framework = window_has(c, "cumem_allocator") ? KG_FRAMEWORK_WORD(VLLM) /* csrc/cumem_allocator.cpp */
			       : framework_cue(c, c10 ? KG_FRAMEWORK_WORD(PYTORCH) : NULL);
	} else if (set(h, 4)) {
		o->framework = KG_FRAMEWORK_WORD(CAFFE);
	} else if (set(h, 6) && !set(h, 7)) {
		o->framework = KG_FRAMEWORK_WORD(CTRANSLATE2); /* src/cuda/utils.h CUDA_CHECK */
	} else if (set(h, 9)) {
		o->framework = window_has(c, "tvm") || window_has(c, "TVM") || window_has(c, "mlc")
				       ? KG_FRAMEWORK_WORD(TVM)
			       : window_has(c, "mshadow") || window_has(c, "mxnet") ? KG_FRAMEWORK_WORD(MXNET)
			       : NULL;
	} else {
		o->framework = framework_cue(c, NULL);
	}
	o->device_index = cap_int(c, h, 10);
	return done(o, h, mend(h));
}

/* ---- cuBLAS / cuDNN status words ------------------------------------- */

static void set_status(kg_oom *o, const ctx *c, const match *m, int g)
{
	o->status = kg_strndup(c->s + m->v[2 * g], m->v[2 * g + 1] - m->v[2 * g]);
}

static bool g_status_check(ctx *c, const match *h)
{
	/* cudnnStatus_t and cublasStatus_t names by value (cudnn.h, cublas_api.h) */
	static const char *const cudnn_names[] = {
		"SUCCESS", "NOT_INITIALIZED", "ALLOC_FAILED", "BAD_PARAM", "INTERNAL_ERROR",
		"INVALID_VALUE", "ARCH_MISMATCH", "MAPPING_ERROR", "EXECUTION_FAILED",
		"NOT_SUPPORTED", "LICENSE_ERROR", "RUNTIME_PREREQUISITE_MISSING",
		"RUNTIME_IN_PROGRESS", "RUNTIME_FP_OVERFLOW",
	};
	static const struct { int v; const char *name; } cublas_names[] = {
		{1, "NOT_INITIALIZED"}, {3, "ALLOC_FAILED"}, {7, "INVALID_VALUE"},
		{8, "ARCH_MISMATCH"}, {11, "MAPPING_ERROR"}, {13, "EXECUTION_FAILED"},
		{14, "INTERNAL_ERROR"}, {15, "NOT_SUPPORTED"}, {16, "LICENSE_ERROR"},
	};
	kg_oom *o = c->o;
	bool cudnn = cap_is(c, h, 1, "CUDNN");
	ident(o, cudnn ? KG_FAMILY_WORD(CUDNN) : KG_FAMILY_WORD(CUBLAS), KG_FRAMEWORK_WORD(CAFFE), KG_DEVICE_WORD(CUDA));
	if (set(h, 3)) {
		set_status(o, c, h, 3);
	} else {
		int64_t v = cap_int(c, h, 2);
		const char *name = NULL;
		if (cudnn && v > 0 && v < (int64_t)(sizeof cudnn_names / sizeof cudnn_names[0]))
			name = cudnn_names[v];
		for (size_t i = 0; !cudnn && i < sizeof cublas_names / sizeof cublas_names[0]; i++)
			if (cublas_names[i].v == v)
				name = cublas_names[i].name;
		if (name)
			o->status = kg_asprintf("%s_STATUS_%s", cudnn ? "CUDNN" : "CUBLAS", name);
	}
	return done(o, h, mend(h));
}

static bool g_status(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	o->family = cap_is(c, h, 5, "CUDNN") ? KG_FAMILY_WORD(CUDNN) : KG_FAMILY_WORD(CUBLAS);
	o->device_type = cap_is(c, h, 1, "HIP") ? KG_DEVICE_WORD(HIP) : KG_DEVICE_WORD(CUDA);
	set_status(o, c, h, 4);
	if (set(h, 2))
		o->framework = KG_FRAMEWORK_WORD(TORCH7);  /* cudnn.torch errcheck */
	else if (set(h, 3))
		o->framework = KG_FRAMEWORK_WORD(TENSORFLOW); /* stream_executor cuda_dnn.cc */
	else if (set(h, 1))
		o->framework = KG_FRAMEWORK_WORD(PYTORCH); /* c10 "CUDA error: " / "cuDNN error: " */
	else
		o->framework = framework_cue(c, window_has(c, "RuntimeError") ? KG_FRAMEWORK_WORD(PYTORCH) : NULL);
	return done(o, h, mend(h));
}

static bool g_cublas_se(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUBLAS), framework_cue(c, KG_FRAMEWORK_WORD(TENSORFLOW)), KG_DEVICE_WORD(CUDA));
	if (set(h, 1))
		set_status(o, c, h, 1);
	return done(o, h, mend(h));
}

/* ---- NCCL ------------------------------------------------------------ */

static bool g_nccl(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	size_t end = mend(h);
	if (set(h, 1)) {
		/* ncclUnhandledCudaError …\nLast error:\nCuda failure 'out of memory'
		 * within the next four lines */
		size_t lim = lines_after(c, end, 4);
		match m;
		if (!run(c, RX_NCCL_FAIL, lim, end, false, &m))
			return false;
		end = mend(&m);
	}
	ident(o, KG_FAMILY_WORD(NCCL), window_has(c, "ProcessGroupNCCL") || window_has(c, "torch") ? KG_FRAMEWORK_WORD(PYTORCH) : NULL, KG_DEVICE_WORD(CUDA));
	/* NCCL's debug prefix "host:pid:tid [N] [file:line] NCCL WARN …": N is
	 * the CUDA device (src/debug.cc ncclDebugLog) */
	size_t ls = mstart(h);
	while (ls > 0 && c->s[ls - 1] != '\n')
		ls--;
	const char *seg = c->s + ls;
	size_t segn = mstart(h) - ls;
	bool debug_line = (mend(h) - mstart(h) > 9 && !memcmp(c->s + mstart(h), "NCCL WARN", 9)) ||
			  memmem(seg, segn, "NCCL WARN", 9);
	const char *br = debug_line ? memchr(seg, '[', segn) : NULL;
	if (br) {
		size_t k = 1;
		while (br + k < seg + segn && br[k] >= '0' && br[k] <= '9' && k < 5)
			k++;
		if (k > 1 && br + k < seg + segn && br[k] == ']')
			o->device_index = strtol(br + 1, NULL, 10);
	}
	return done(o, h, end);
}

/* ---- TensorFlow (formats.md §7.1) ------------------------------------ */

static const char *tf_device_type(const ctx *c, const match *m, int g)
{
	if (!set(m, g))
		return NULL;
	const char *p = c->s + m->v[2 * g];
	size_t L = m->v[2 * g + 1] - m->v[2 * g];
	if (memmem(p, L, "_host", 5)) /* cuda_host_bfc, gpu_host_bfc: pinned host */
		return KG_DEVICE_WORD(CPU);
	if (memmem(p, L, "GPU", 3) || memmem(p, L, "gpu_", 4) == p)
		return KG_DEVICE_WORD(CUDA);
	if (memmem(p, L, "TPU", 3))
		return KG_DEVICE_WORD(TPU);
	if (memmem(p, L, "CPU", 3) || memmem(p, L, "cpu", 3))
		return KG_DEVICE_WORD(CPU);
	return NULL;
}

/* Device index from "device:GPU:N" (a device name) or "GPU_N_bfc" (an
 * allocator name) inside capture g. */
static int64_t tf_device_index(const ctx *c, const match *m, int g)
{
	if (!set(m, g))
		return KG_NONE;
	const char *p = c->s + m->v[2 * g], *e = c->s + m->v[2 * g + 1];
	for (const char *q = p; q + 4 < e; q++) {
		if ((memcmp(q, "GPU:", 4) == 0 || memcmp(q, "GPU_", 4) == 0 ||
		     memcmp(q, "TPU:", 4) == 0) && q[4] >= '0' && q[4] <= '9') {
			int64_t v = 0;
			for (q += 4; q < e && *q >= '0' && *q <= '9' && v < INT64_MAX / 10 - 9; q++)
				v = v * 10 + (*q - '0');
			return v;
		}
	}
	return KG_NONE;
}

/* TF DataType names (types.proto DataTypeString) → PyTorch names, widths. */
static const struct {
	const char *tf, *torch;
	int width;
} dtypes[] = {
	{"float", "float32", 4}, {"double", "float64", 8}, {"half", "float16", 2},
	{"bfloat16", "bfloat16", 2}, {"int8", "int8", 1}, {"uint8", "uint8", 1},
	{"int16", "int16", 2}, {"uint16", "uint16", 2}, {"int32", "int32", 4},
	{"uint32", "uint32", 4}, {"int64", "int64", 8}, {"uint64", "uint64", 8},
	{"bool", "bool", 1}, {"complex64", "complex64", 8}, {"complex128", "complex128", 16},
	{"qint8", "qint8", 1}, {"quint8", "quint8", 1}, {"qint32", "qint32", 4},
	{"float8_e4m3fn", "float8_e4m3fn", 1}, {"float8_e5m2", "float8_e5m2", 1},
};

static kg_tensor *tf_tensor(const ctx *c, const match *m)
{
	size_t i = m->v[2], e = m->v[3];
	kg_tensor *t = kg_calloc(1, sizeof *t);
	__int128 elems = 1;
	bool overflow = false;
	while (i < e) {
		while (i < e && (is_ws(c->s[i]) || c->s[i] == ','))
			i++;
		if (i >= e)
			break;
		int64_t d = 0;
		size_t d0 = i;
		while (i < e && c->s[i] >= '0' && c->s[i] <= '9') {
			if (d > (INT64_MAX - 9) / 10)
				overflow = true;
			else
				d = d * 10 + (c->s[i] - '0');
			i++;
		}
		if (i == d0) {
			/* neither a digit nor a separator (a form feed, "?"): skip it
			 * rather than loop on it */
			i++;
			continue;
		}
		t->shape = kg_realloc(t->shape, (t->ndim + 1) * sizeof *t->shape);
		t->shape[t->ndim++] = d;
		elems *= d;
		if (elems > (__int128)INT64_MAX)
			overflow = true, elems = 0;
	}
	t->bytes = KG_NONE;
	if (set(m, 2)) {
		size_t L = m->v[5] - m->v[4];
		const char *name = c->s + m->v[4];
		for (size_t k = 0; k < sizeof dtypes / sizeof dtypes[0]; k++) {
			if (strlen(dtypes[k].tf) == L && memcmp(dtypes[k].tf, name, L) == 0) {
				snprintf(t->dtype, sizeof t->dtype, "%s", dtypes[k].torch);
				__int128 b = elems * dtypes[k].width;
				if (!overflow && b <= (__int128)INT64_MAX)
					t->bytes = (int64_t)b;
				break;
			}
		}
		if (!t->dtype[0]) /* a type we do not map: keep TF's name */
			snprintf(t->dtype, sizeof t->dtype, "%.*s", (int)(L < 23 ? L : 23), name);
	}
	return t;
}

static bool g_tf_oom(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	match m;
	if (!at(c, RX_TF_SHAPE, mend(h), &m))
		return false;
	ident(o, KG_FAMILY_WORD(TENSORFLOW), KG_FRAMEWORK_WORD(TENSORFLOW), NULL);
	o->tensor = tf_tensor(c, &m);
	o->device_type = tf_device_type(c, &m, 3);
	if (!o->device_type)
		o->device_type = tf_device_type(c, &m, 4);
	o->device_index = tf_device_index(c, &m, 3);
	if (o->device_index == KG_NONE)
		o->device_index = tf_device_index(c, &m, 4);
	size_t pos = mend(&m);
	while (at(c, RX_TF_TAIL, pos, &m) && mend(&m) > pos)
		pos = mend(&m);
	return done(o, h, pos);
}

static bool g_tf_bfc(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	match m;
	/* XLA's own copy of the allocator (jaxlib: external/xla/xla/tsl/…;
	 * TensorFlow's is tensorflow/ or external/local_tsl|local_xla/). Recent
	 * jaxlib logs the bare file name ("bfc_allocator.cc:598]"): then JAX's
	 * own exception in the window names it (jax.errors.JaxRuntimeError,
	 * jaxlib's XlaRuntimeError, "with allocator GPU_0_bfc" in both) */
	bool xla = window_has(c, "external/xla/") || window_has(c, "JaxRuntimeError") ||
		   window_has(c, "XlaRuntimeError");
	ident(o, xla ? KG_FAMILY_WORD(JAX) : KG_FAMILY_WORD(TENSORFLOW),
	      xla ? KG_FRAMEWORK_WORD(JAX) : framework_cue(c, KG_FRAMEWORK_WORD(TENSORFLOW)),
	      tf_device_type(c, h, 1));
	o->device_index = tf_device_index(c, h, 1);
	o->mem.requested = cap_size(c, h, 2);
	size_t pos = mend(h);
	if (at(c, RX_TF_BFC_BODY, pos, &m)) {
		if (set(&m, 1))
			o->mem.requested = cap_bytes(c, &m, 1); /* "(rounded to N)" */
		if (set(&m, 2))
			o->kind = "oom-warning"; /* retried, "not a failure" */
		pos = mend(&m);
	}
	return done(o, h, pos);
}

static bool g_tf_eigen(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(TENSORFLOW), KG_FRAMEWORK_WORD(TENSORFLOW), KG_DEVICE_WORD(CUDA));
	o->mem.requested = cap_bytes(c, h, 1);
	return done(o, h, mend(h));
}

static bool g_tf_limit(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(TENSORFLOW), framework_cue(c, KG_FRAMEWORK_WORD(TENSORFLOW)), NULL);
	o->mem.requested = cap_bytes(c, h, 1);
	o->mem.allowed = cap_bytes(c, h, 2);
	return done(o, h, mend(h));
}

/* ---- JAX / XLA (formats.md §7.2) ------------------------------------- */

static bool g_jax_oom(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(JAX), window_has(c, "tensorflow") && !window_has(c, "jax") ? KG_FRAMEWORK_WORD(TENSORFLOW) : KG_FRAMEWORK_WORD(JAX),
	      set(h, 1) ? KG_DEVICE_WORD(CPU) : tf_device_type(c, h, 4));
	o->mem.requested = set(h, 2) ? cap_bytes(c, h, 2) : cap_size(c, h, 3);
	o->device_index = cap_int(c, h, 5);
	return done(o, h, mend(h));
}

static bool g_jax_pjrt(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(JAX), KG_FRAMEWORK_WORD(JAX), NULL);
	o->mem.requested = set(h, 2) ? cap_bytes(c, h, 2) : cap_size(c, h, 1);
	o->device_index = cap_int(c, h, 3);
	return done(o, h, mend(h));
}

/* stream_executor cuda_driver.cc. jaxlib vendors TF as external/org_tensorflow;
 * a plain tensorflow/ path in the window means TensorFlow itself. */
static bool g_jax_se(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	bool tf = window_has(c, "tensorflow/") && !window_has(c, "org_tensorflow");
	ident(o, tf ? KG_FAMILY_WORD(TENSORFLOW) : KG_FAMILY_WORD(JAX), tf ? KG_FRAMEWORK_WORD(TENSORFLOW) : KG_FRAMEWORK_WORD(JAX), KG_DEVICE_WORD(CUDA));
	o->mem.requested = cap_bytes(c, h, 2);
	size_t end = mend(h);
	/* XLA reports the same allocation again as "Failed to allocate request
	 * for 3.39GiB (3640655872B) on device ordinal 0" within the next lines:
	 * the exact byte count identifies it; take its device and range. */
	size_t lim = lines_after(c, end, 3);
	match m;
	if (run(c, RX_PJRT_EXACT, lim, end, false, &m) &&
	    cap_int(c, &m, 1) == o->mem.requested.bytes) {
		o->device_index = cap_int(c, &m, 2);
		end = mend(&m);
	}
	return done(o, h, end);
}

static bool g_jax_tpu(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(JAX), KG_FRAMEWORK_WORD(JAX), KG_DEVICE_WORD(TPU));
	o->mem.requested = cap_size(c, h, 1);
	o->mem.free = cap_size(c, h, 2);
	return done(o, h, mend(h));
}

/* ---- Apple MPS (formats.md §7.3) ------------------------------------- */

static bool g_mps(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(MPS), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(MPS));
	o->mem.allocated = cap_size(c, h, 1);
	o->mem.other_allocations = cap_size(c, h, 2);
	o->mem.allowed = cap_size(c, h, 3);
	o->mem.requested = cap_size(c, h, 4);
	return done(o, h, match_hint(c->s, c->n, mend(h)));
}

/* ---- ggml / llama.cpp ------------------------------------------------ */

static const char *ggml_device_type(const ctx *c, const match *m, int g)
{
	if (cap_is(c, m, g, "CUDA"))
		return KG_DEVICE_WORD(CUDA);
	if (cap_is(c, m, g, "ROCm"))
		return KG_DEVICE_WORD(HIP);
	if (cap_is(c, m, g, "CPU") || cap_is(c, m, g, "CUDA_Host"))
		return KG_DEVICE_WORD(CPU);
	return NULL;
}

static bool g_ggml(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(GGML), KG_FRAMEWORK_WORD(GGML), KG_DEVICE_WORD(CUDA));
	o->mem.requested = cap_size(c, h, 1);
	o->device_index = cap_int(c, h, 2);
	size_t end = mend(h);
	/* ggml-alloc then reports the same buffer with its exact size on the
	 * next line: "failed to allocate CUDA1 buffer of size 10345253120". */
	size_t lim = lines_after(c, end, 1);
	match m;
	if (run(c, RX_GGML_BUF, lim, end, false, &m) &&
	    cap_int(c, &m, 2) == o->device_index &&
	    kg_size_near(cap_bytes(c, &m, 3), o->mem.requested)) {
		o->mem.requested = cap_bytes(c, &m, 3);
		end = mend(&m);
	}
	return done(o, h, end);
}

/* ggml's 2023 CUDA_CHECK (RX_GGML_CHECK): the failing call is not named,
 * nor its size; ggml when the file is its own */
static bool g_ggml_check(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	bool hip = cap_is(c, h, 1, "HIP");
	bool ggml = memmem(c->s + h->v[4], h->v[5] - h->v[4], "ggml", 4) != NULL;
	ident(o, ggml ? KG_FAMILY_WORD(GGML) : KG_FAMILY_WORD(CUDA_RUNTIME),
	      ggml ? KG_FRAMEWORK_WORD(GGML) : framework_cue(c, NULL),
	      hip ? KG_DEVICE_WORD(HIP) : KG_DEVICE_WORD(CUDA));
	return done(o, h, mend(h));
}

static bool g_ggml_buf(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(GGML), KG_FRAMEWORK_WORD(GGML), ggml_device_type(c, h, 1));
	o->device_index = cap_int(c, h, 2);
	o->mem.requested = cap_bytes(c, h, 3);
	return done(o, h, mend(h));
}

/* ggml's Vulkan backend: the failed buffer's size, then (next line) the
 * Vulkan error that says it was device memory. */
static bool g_ggml_vk(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	/* not the ggml family: its headline names cudaMalloc */
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(GGML), NULL);
	o->mem.requested = cap_bytes(c, h, 1);
	size_t end = mend(h);
	size_t lim = lines_after(c, end, 1);
	match m;
	if (run(c, RX_VK_OOM, lim, end, false, &m)) {
		o->status = kg_strdup("VK_ERROR_OUT_OF_DEVICE_MEMORY");
		end = mend(&m);
	}
	return done(o, h, end);
}

static bool g_vk_oom(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), NULL, NULL);
	o->status = kg_strdup("VK_ERROR_OUT_OF_DEVICE_MEMORY");
	return done(o, h, mend(h));
}

/* ---- messages found missing on real logs (issue 13) ------------------ */

static bool g_cublas_thc(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUBLAS), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(CUDA));
	o->status = kg_strdup("CUBLAS_STATUS_ALLOC_FAILED");
	return done(o, h, mend(h));
}

static bool g_cublas_fail(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUBLAS),
	      window_has(c, "onnxruntime") ? KG_FRAMEWORK_WORD(ONNXRUNTIME) : framework_cue(c, NULL),
	      KG_DEVICE_WORD(CUDA));
	o->status = kg_strdup("CUBLAS_STATUS_ALLOC_FAILED");
	o->device_index = cap_int(c, h, 1);
	return done(o, h, mend(h));
}

static bool g_cudnn_alloc(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUDNN),
	      framework_cue(c, window_has(c, "RuntimeError") ? KG_FRAMEWORK_WORD(PYTORCH) : NULL),
	      KG_DEVICE_WORD(CUDA));
	o->status = kg_strdup("CUDNN_STATUS_ALLOC_FAILED");
	return done(o, h, mend(h));
}

static bool g_cudnn_algo(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUDNN), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(CUDA));
	o->kind = "oom-suspected"; /* no workspace fitted; not said outright */
	return done(o, h, mend(h));
}

static bool g_xla_autotune(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	const char *fw = window_has(c, "torch_xla") ? KG_FRAMEWORK_WORD(TORCH_XLA)
		       : window_has(c, "tensorflow") && !window_has(c, "jax") ? KG_FRAMEWORK_WORD(TENSORFLOW)
		       : KG_FRAMEWORK_WORD(JAX);
	ident(o, KG_FAMILY_WORD(JAX), fw, KG_DEVICE_WORD(CUDA));
	return done(o, h, mend(h));
}

static bool g_xla_space(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	const char *fw = window_has(c, "torch_xla") ? KG_FRAMEWORK_WORD(TORCH_XLA)
		       : window_has(c, "tensorflow") ? KG_FRAMEWORK_WORD(TENSORFLOW)
		       : KG_FRAMEWORK_WORD(JAX);
	ident(o, KG_FAMILY_WORD(JAX), fw, KG_DEVICE_WORD(TPU));
	o->mem.total_capacity = cap_size(c, h, 3);
	return done(o, h, mend(h));
}

static bool g_accel_batch(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(PYTORCH), NULL);
	return done(o, h, mend(h));
}

/* ---- issue 24: CuPy, PaddlePaddle, ONNX Runtime, MXNet, runtime error
 * names, Level Zero, TensorFlow eager, vLLM -------------------------- */

/* A "{:,}"-grouped integer ("25,600,000") from a capture, or KG_NONE. */
static int64_t cap_grouped(const ctx *c, const match *m, int g)
{
	if (!set(m, g))
		return KG_NONE;
	int64_t v = 0;
	size_t digits = 0;
	for (size_t i = m->v[2 * g]; i < m->v[2 * g + 1]; i++) {
		if (c->s[i] == ',')
			continue;
		if (c->s[i] < '0' || c->s[i] > '9' || v > (INT64_MAX - 9) / 10)
			return KG_NONE;
		v = v * 10 + (c->s[i] - '0');
		digits++;
	}
	return digits ? v : KG_NONE;
}

static bool g_cupy(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUPY), KG_FRAMEWORK_WORD(CUPY), KG_DEVICE_WORD(CUDA));
	int64_t req = cap_grouped(c, h, 1), limit = cap_grouped(c, h, 2);
	o->mem.requested = req == KG_NONE ? kg_size_none() : kg_size_exact(req);
	/* "allocated so far" is the pool's total, with or without the request
	 * depending on the release: not read as a budget part */
	if (limit != KG_NONE)
		o->mem.allowed = kg_size_exact(limit); /* MemoryPool.set_limit */
	return done(o, h, mend(h));
}

static bool g_cupy_old(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUPY), KG_FRAMEWORK_WORD(CUPY), KG_DEVICE_WORD(CUDA));
	o->mem.requested = cap_bytes(c, h, 1);
	return done(o, h, mend(h));
}

static bool g_paddle(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(PADDLE), KG_FRAMEWORK_WORD(PADDLE), KG_DEVICE_WORD(CUDA));
	o->device_index = cap_int(c, h, 1);
	o->mem.requested = cap_size(c, h, 2);
	/* group 3, "N memory has been allocated", is total − available in
	 * cuda_allocator.cc but the allocator's own count elsewhere: not read */
	o->mem.free = cap_size(c, h, 4);
	return done(o, h, mend(h));
}

static bool g_ort_arena(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	/* the same arena serves the CPU: a device only when the text names CUDA */
	bool cuda = window_has(c, "CUDA") || window_has(c, "Cuda") || window_has(c, "cuda");
	ident(o, KG_FAMILY_WORD(ONNXRUNTIME), KG_FRAMEWORK_WORD(ONNXRUNTIME), cuda ? KG_DEVICE_WORD(CUDA) : NULL);
	o->mem.requested = cap_bytes(c, h, 1);
	return done(o, h, mend(h));
}

static bool g_mxnet(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUDA_RUNTIME),
	      window_has(c, "mxnet") || window_has(c, "MXNet") || window_has(c, "pooled_storage_manager")
		      ? KG_FRAMEWORK_WORD(MXNET) : framework_cue(c, NULL),
	      KG_DEVICE_WORD(CUDA));
	return done(o, h, mend(h));
}

static bool g_errname(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	bool hip = set(h, 2);
	ident(o, KG_FAMILY_WORD(CUDA_RUNTIME),
	      window_has(c, "cupy") ? KG_FRAMEWORK_WORD(CUPY)
	      : window_has(c, "torch") || window_has(c, "RuntimeError") ? KG_FRAMEWORK_WORD(PYTORCH)
	      : framework_cue(c, NULL),
	      hip ? KG_DEVICE_WORD(HIP) : KG_DEVICE_WORD(CUDA));
	o->status = kg_strndup(c->s + h->v[hip ? 4 : 2], h->v[hip ? 5 : 3] - h->v[hip ? 4 : 2]);
	return done(o, h, mend(h));
}

static bool g_l0(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), window_has(c, "torch") ? KG_FRAMEWORK_WORD(PYTORCH) : NULL,
	      KG_DEVICE_WORD(XPU));
	size_t n = strcspn(c->s + mstart(h), ")");
	o->status = kg_strndup(c->s + mstart(h), n < mend(h) - mstart(h) ? n : mend(h) - mstart(h));
	return done(o, h, mend(h));
}

static bool g_tf_eager(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(TENSORFLOW), framework_cue(c, KG_FRAMEWORK_WORD(TENSORFLOW)), NULL);
	return done(o, h, mend(h));
}

static bool g_tgi_prefill(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), NULL, NULL);
	return done(o, h, mend(h));
}

static bool g_vllm_kv(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(VLLM), NULL);
	return done(o, h, mend(h));
}

/* A size from capture g, a number of GiB (vLLM prints binary units as
 * "GiB", so its "GB" means the same; the unit is the regex's to require),
 * or not known. */
static kg_size cap_gib(const ctx *c, const match *m, int g)
{
	if (!set(m, g))
		return kg_size_none();
	char tmp[48];
	size_t nl = m->v[2 * g + 1] - m->v[2 * g];
	if (nl > 30)
		return kg_size_none();
	snprintf(tmp, sizeof tmp, "%.*s GiB", (int)nl, c->s + m->v[2 * g]);
	kg_size z;
	return kg_size_parse_str(tmp, &z) < 0 ? kg_size_none() : z;
}

/* vLLM's start-up check: the device's free memory (F of T) short of the
 * share the engine may use (U × T = R), which is its cap (mem.allowed,
 * as PyTorch's "X allowed"): nothing was allocated, so no request. */
static bool g_vllm_start(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(VLLM),
	      cap_is(c, h, 1, "cuda") ? KG_DEVICE_WORD(CUDA) : cap_is(c, h, 1, "xpu") ? KG_DEVICE_WORD(XPU) : NULL);
	o->device_index = cap_int(c, h, 2);
	o->mem.free = cap_gib(c, h, 3);
	o->mem.total_capacity = cap_gib(c, h, 4);
	o->mem.allowed = cap_gib(c, h, 7);
	return done(o, h, mend(h));
}

static bool g_vllm_warmup(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(VLLM), KG_DEVICE_WORD(CUDA));
	return done(o, h, mend(h));
}

static bool g_sglang_kv(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(SGLANG), NULL);
	return done(o, h, mend(h));
}

static bool g_hf_dispatch(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(PYTORCH), KG_DEVICE_WORD(CUDA));
	return done(o, h, mend(h));
}

/* ---- issue 31: wordings found unread in the dev cases, the scheduler
 * and the kernel ------------------------------------------------------ */

static bool g_ipy_oom(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), framework_cue(c, window_has(c, "cupy") ? KG_FRAMEWORK_WORD(CUPY)
						       : KG_FRAMEWORK_WORD(PYTORCH)), NULL);
	o->header = true; /* the message, when it follows, replaces it */
	match m = *h;
	m.v[0] = h->v[2]; /* the class, not the indentation */
	return done(o, &m, mend(h));
}

/* a lower-case or quoted "killed" after a progress line: the line, so the
 * message shows what was loading */
static bool g_bar_killed(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OOM_KILLER), NULL, NULL);
	match m = *h;
	while (m.v[0] < m.v[1] && (c->s[m.v[0]] == ' ' || c->s[m.v[0]] == '\t'))
		m.v[0]++;
	return done(o, &m, mend(h));
}

static bool g_darknet(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(CUDNN), KG_FRAMEWORK_WORD(DARKNET), KG_DEVICE_WORD(CUDA));
	o->kind = "oom-suspected"; /* no algorithm's workspace fitted the free memory */
	return done(o, h, mend(h));
}

static bool g_tvm_storage(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(TVM), NULL);
	/* the storage region is the compiled plan's, not a cap of the
	 * allocator: only the request is read */
	o->mem.requested = cap_bytes(c, h, 1);
	return done(o, h, mend(h));
}

static bool g_openvino(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(OPENVINO), KG_DEVICE_WORD(XPU));
	if (set(h, 1)) {
		o->mem.requested = cap_bytes(c, h, 1);
		/* CL_DEVICE_MAX_MEM_ALLOC_SIZE: one buffer's limit, not memory */
		o->status = kg_asprintf("max alloc size %lld bytes", (long long)cap_int(c, h, 2));
	} else if (set(h, 3)) {
		o->mem.requested = cap_bytes(c, h, 3);
		o->mem.allocated = cap_bytes(c, h, 4);
		o->mem.total_capacity = cap_bytes(c, h, 5);
	}
	return done(o, h, mend(h));
}

static bool g_ollama(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OTHER), KG_FRAMEWORK_WORD(OLLAMA), KG_DEVICE_WORD(CPU));
	o->mem.requested = cap_size(c, h, 1);
	o->mem.free = cap_size(c, h, 2); /* free RAM + free swap */
	return done(o, h, mend(h));
}

static bool g_oom_kill(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OOM_KILLER), NULL, NULL);
	/* CONSTRAINT_MEMCG: a memory cgroup's limit; CONSTRAINT_NONE: the
	 * whole machine's memory */
	o->status = kg_strndup(c->s + mstart(h), strcspn(c->s + mstart(h), ",\n"));
	size_t end = mend(h);
	/* the kernel prints "[Memory cgroup o|O]ut of memory: Killed process N
	 * (name) …" on the next line: one kill, one message */
	size_t lim = lines_after(c, end, 1);
	match m;
	if (run(c, RX_KILLED, lim, end, false, &m) && set(&m, 2))
		end = mend(&m);
	return done(o, h, end);
}

/* A scheduler's or container runtime's report of an OOM kill in the job's
 * memory cgroup: status names the reporter, for the rules' remedy */
static bool cgroup_kill(ctx *c, const match *h, const char *reporter)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OOM_KILLER), NULL, NULL);
	o->status = kg_strdup(reporter);
	return done(o, h, mend(h));
}

static bool g_slurm_oom(ctx *c, const match *h)
{
	return cgroup_kill(c, h, "Slurm: oom-kill event");
}

static bool g_slurm_state(ctx *c, const match *h)
{
	return cgroup_kill(c, h, "Slurm: OUT_OF_MEMORY");
}

static bool g_k8s_oom(ctx *c, const match *h)
{
	return cgroup_kill(c, h, "OOMKilled");
}

/* SIGKILL as an exit status: the OOM killer's signal, but not only its */
static bool g_exit_kill(ctx *c, const match *h)
{
	kg_oom *o = c->o;
	ident(o, KG_FAMILY_WORD(OOM_KILLER), window_has(c, "torch.distributed") ? KG_FRAMEWORK_WORD(PYTORCH) : NULL, NULL);
	return done(o, h, mend(h));
}

/* ---- dispatch -------------------------------------------------------- */

typedef struct grammar {
	int rx;
	const char *trig[2];  /* the locator can only match if the first line
	                         holds one of these */
	bool (*fn)(ctx *c, const match *head);
} grammar;

/* In priority order: when two grammars' messages start at the same byte,
 * the earlier entry wins. */
static const grammar grammars[] = {
	{RX_PT_HEAD, {"Tried to allocate", "out of memory"}, g_pytorch},
	{RX_MPS, {"MPS backend out of memory"}, g_mps},
	{RX_ASYNC_HEAD, {"Allocation on device"}, g_async},
	{RX_CPU, {"DefaultCPUAllocator"}, g_cpu},
	{RX_TH_RAM, {"Buy new RAM"}, g_th_ram},
	{RX_TF_CUDNN_INIT, {"Failed to get convolution algorithm"}, g_tf_cudnn_init},
	{RX_KILLED, {"Killed", "SIGKILL"}, g_killed},
	{RX_KILLED, {"Out of memory: Kill process", "out of memory: Kill process"}, g_killed},
	{RX_OOM_KILL, {"oom-kill"}, g_oom_kill},
	{RX_SLURM_OOM, {"oom-kill", "oom_kill event"}, g_slurm_oom},
	{RX_SLURM_STATE, {"Out Of Memory", "OUT_OF_MEMORY"}, g_slurm_state},
	{RX_K8S_OOM, {"OOMKilled"}, g_k8s_oom},
	{RX_EXIT_KILL, {"code 137", "status 137"}, g_exit_kill},
	{RX_EXIT_KILL, {"exitcode: -9"}, g_exit_kill},
	{RX_EXIT_KILL, {"signal: killed"}, g_exit_kill},
	{RX_EXIT_KILL, {"return code = -9"}, g_exit_kill},
	{RX_TGI_PREFILL, {"prefill tokens"}, g_tgi_prefill},
	{RX_BAR_KILLED, {"killed", "Killed"}, g_bar_killed},
	{RX_SHELL_KILLED, {"killed"}, g_shell_killed},
	{RX_PROSE_KILLED, {"killed", "Killed"}, g_prose_killed},
	{RX_PY_MEMERR, {"MemoryError"}, g_py_memerr},
	{RX_SHM_WORKER, {"killed by signal"}, g_shm_worker},
	{RX_SHM_BUS, {"Unexpected bus error"}, g_shm_worker},
	{RX_SHM_ALLOC, {"</torch_"}, g_shm_worker},
	{RX_BAD_ALLOC, {"bad_alloc"}, g_bad_alloc},
	{RX_TF_OOM, {"OOM when allocating"}, g_tf_oom},
	{RX_TF_BFC, {"ran out of memory"}, g_tf_bfc},
	{RX_TF_EIGEN, {"ran out of memory"}, g_tf_eigen},
	{RX_TF_LIMIT, {"exceeds the memory limit"}, g_tf_limit},
	{RX_CUPY, {"Out of memory allocating"}, g_cupy},
	{RX_CUPY_OLD, {"out of memory to allocate"}, g_cupy_old},
	{RX_PADDLE, {"Out of memory error on GPU"}, g_paddle},
	{RX_JAX_OOM, {"Out of memory", "Out of host memory"}, g_jax_oom},
	{RX_JAX_PJRT, {"Failed to allocate"}, g_jax_pjrt},
	{RX_JAX_SE, {"failed to allocate"}, g_jax_se},
	{RX_JAX_TPU, {"Attempting to allocate"}, g_jax_tpu},
	{RX_GGML, {"cudaMalloc failed"}, g_ggml},
	{RX_GGML_CHECK, {"error 2 at"}, g_ggml_check},
	{RX_GGML_BUF, {"failed to allocate"}, g_ggml_buf},
	{RX_STATUS_CHECK, {"_STATUS_"}, g_status_check},
	{RX_CUBLAS_SE, {"failed to create cublas handle"}, g_cublas_se},
	{RX_STATUS, {"_STATUS_"}, g_status},
	{RX_NCCL, {"ncclUnhandledCudaError", "out of memory"}, g_nccl},
	{RX_CUDART, {"out of memory", "OUT_OF_MEMORY"}, g_cudart},
	{RX_PT_BARE, {"out of memory"}, g_pytorch_bare},
	{RX_PT_OOMERR, {"OutOfMemoryError: "}, g_pytorch_bare},
	{RX_IPY_OOM, {"OutOfMemoryError"}, g_ipy_oom},
	{RX_CUBLAS_THC, {"esource allocation failed"}, g_cublas_thc},
	{RX_CUBLAS_FAIL, {"esource allocation failed"}, g_cublas_fail},
	{RX_CUDNN_ALLOC, {"esource allocation failed"}, g_cudnn_alloc},
	{RX_CUDNN_ALGO, {"valid cuDNN algorithm"}, g_cudnn_algo},
	{RX_XLA_SPACE, {"Ran out of memory in"}, g_xla_space},
	{RX_XLA_AUTOTUNE, {"best cudnn convolution"}, g_xla_autotune},
	{RX_ACCEL_BATCH, {"No executable batch size"}, g_accel_batch},
	{RX_ORT_ARENA, {"Failed to allocate memory for requested"}, g_ort_arena},
	{RX_MXNET, {"cudaMalloc"}, g_mxnet},
	{RX_ERRNAME, {"cudaErrorMemoryAllocation", "hipErrorOutOfMemory"}, g_errname},
	{RX_L0, {"OUT_OF_DEVICE_MEMORY"}, g_l0},
	{RX_TF_EAGER, {"failed to allocate memory"}, g_tf_eager},
	{RX_VLLM_KV, {"No available memory for the cache"}, g_vllm_kv},
	{RX_GGML_VK, {"Device memory allocation"}, g_ggml_vk},
	{RX_VK_OOM, {"ErrorOutOfDeviceMemory"}, g_vk_oom},
	{RX_VLLM_SEQ, {"stored in KV cache", "KV cache is"}, g_vllm_kv},
	{RX_VLLM_START, {"Free memory on device"}, g_vllm_start},
	{RX_VLLM_WARMUP, {"warming up"}, g_vllm_warmup},
	{RX_SGLANG_KV, {"mem-fraction-static"}, g_sglang_kv},
	{RX_HF_DISPATCH, {"dispatched on the CPU"}, g_hf_dispatch},
	{RX_DARKNET, {"algo for convolution"}, g_darknet},
	{RX_TVM_STORAGE, {"storage allocation failure"}, g_tvm_storage},
	{RX_OPENVINO, {"Exceeded max size of memory", "out of GPU resources"}, g_openvino},
	{RX_OLLAMA, {"requires more system memory"}, g_ollama},
	{RX_WIN_PAGEFILE, {"rror 1455", "paging file is too small"}, g_bad_alloc},
	{RX_WIN_PAGEFILE, {"Auslagerungsdatei ist zu klein", "页面文件太小"}, g_bad_alloc},
};

/* Locators are short heads: they run over the first line plus this much,
 * so a candidate line never costs a scan of the whole window. */
#define HEAD_SLACK 512

int kg_oom_parse(const char *text, size_t n, size_t first_len, kg_oom *out)
{
	if (first_len > n)
		first_len = n;
	pcre2_match_data *md = pcre2_match_data_create(MAXCAP, NULL);
	kg_oom best;
	bool found = false;
	oom_init(&best);
	size_t head_n = first_len + HEAD_SLACK < n ? first_len + HEAD_SLACK : n;
	for (size_t g = 0; g < sizeof grammars / sizeof grammars[0]; g++) {
		const grammar *gr = &grammars[g];
		if (!(has_lit(text, first_len, gr->trig[0]) ||
		      (gr->trig[1] && has_lit(text, first_len, gr->trig[1]))))
			continue;
		ctx c = {text, n, md, NULL};
		match h;
		size_t off = 0;
		while (off < first_len && run(&c, gr->rx, head_n, off, false, &h) &&
		       mstart(&h) < first_len && (!found || mstart(&h) < best.start)) {
			kg_oom cand;
			oom_init(&cand);
			c.o = &cand;
			if (gr->fn(&c, &h)) {
				kg_oom_free(&best);
				best = cand;
				found = true;
				break;
			}
			kg_oom_free(&cand);
			off = mstart(&h) + 1;
		}
	}
	pcre2_match_data_free(md);
	if (!found)
		return 0;
	*out = best;
	return 1;
}

/* ---- the safety net -------------------------------------------------- */

/* Does the line look like source code (a quoted condition, a notebook's
 * listing) rather than a message? */
static bool code_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	static const char *const heads[] = {"raise ", "except", "if ", "elif ", "assert ", "def ",
					    "#", "//", "--->", "->", "print(", "logger.", "log."};
	for (size_t k = 0; k < sizeof heads / sizeof heads[0]; k++)
		if (n - i >= strlen(heads[k]) && !memcmp(s + i, heads[k], strlen(heads[k])))
			return true;
	if (i < n && s[i] >= '0' && s[i] <= '9') {
		size_t j = i;
		while (j < n && s[j] >= '0' && s[j] <= '9')
			j++;
		if (j < n && j - i <= 5 && s[j] == ' ' && j + 1 < n && s[j + 1] == ' ')
			return true; /* IPython's "     21     x = f()" */
	}
	return has_lit(s, n, " in str(") || has_lit(s, n, " in repr(") || has_lit(s, n, ".lower()");
}

int kg_oom_unrecognized(const char *line, size_t n, const char *raw, size_t rawn, bool exception_line,
			kg_oom *out)
{
	size_t b = 0, e = n;
	trim_blanks(line, &b, &e);
	if (b == e || code_line(line + b, e - b))
		return 0;
	pcre2_match_data *md = pcre2_match_data_create(MAXCAP, NULL);
	ctx c = {line, e, md, NULL};
	match m;
	bool ok = run(&c, RX_UNK_PHRASE, e, b, false, &m) && !run(&c, RX_UNK_NEGATED, e, b, false, &m);
	bool prose = false;
	if (ok && !exception_line) {
		/* the error's words may be in a prefix the scanner stripped
		 * (a logger's "ERROR:__main__:") */
		ctx r = {raw ? raw : line, raw ? rawn : e, md, NULL};
		ok = run(&r, RX_UNK_ERROR, r.n, 0, false, &m);
		if (!ok)
			ok = prose = run(&c, RX_UNK_REPORT, e, b, false, &m);
	}
	pcre2_match_data_free(md);
	if (!ok)
		return 0;
	oom_init(out);
	out->kind = "oom-unrecognized";
	out->family = KG_FAMILY_WORD(UNRECOGNIZED);
	out->prose = prose;
	out->start = b;
	out->end = e;
	return 1;
}

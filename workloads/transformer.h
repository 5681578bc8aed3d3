/*
 * transformer.h: the synthetic transformer training workload.
 *
 * One step trains `layers` pre-LN transformer blocks on a batch of `batch`
 * sequences (seq_len tokens of d_model features each): forward pass, MSE loss
 * against targets that are a fixed random linear map of the inputs (so the
 * task is learnable), full backward pass, one Adam update of every
 * parameter. Everything runs through backend operations on backend memory,
 * so the same code times the CPU and a GPU. Each batch is first prepared on
 * the host by the data pipeline (about prep_us microseconds of arithmetic per
 * sample), inline (workers = 0) or by `workers` threads that fill a bounded
 * prefetch queue.
 *
 * Shape keys: d_model heads seq_len d_ff layers prep_us.
 * Phases: gemm attention elementwise optimizer data.
 */
#ifndef RT_TRANSFORMER_H
#define RT_TRANSFORMER_H

#include "workload.h"

extern const rt_workload rt_workload_transformer;

/*
 * Test hooks. They read a state made by rt_workload_transformer.setup().
 *
 * Parameters form one flat vector (also the order of the backend buffer).
 * For each layer, in order:
 *   ln1_gamma[D] ln1_beta[D] w_qkv[D][3D] b_qkv[3D] w_o[D][D] b_o[D]
 *   ln2_gamma[D] ln2_beta[D] w_1[D][F] b_1[F] w_2[F][D] b_2[D]
 * then lnf_gamma[D] lnf_beta[D] w_out[D][D] b_out[D]
 * (D = d_model, F = d_ff; matrices row-major, y = x w + b with x a row).
 * Columns of the QKV projection are [q | k | v], head h using columns
 * h*D/heads .. (h+1)*D/heads - 1 of each.
 */

/* Number of trainable parameters. */
size_t rt_transformer_nparams(const void *state);

/*
 * Prepares the next batch, runs the forward and backward pass without the
 * optimizer update, and copies out (as doubles) the loss, the parameters
 * (nparams), their gradients (nparams), the input batch and the targets
 * (batch*seq_len*d_model each, [sequence][token][feature]). Any output
 * pointer may be NULL.
 */
int rt_transformer_loss_and_grads(void *state, double *loss, double *params,
				  double *grads, double *input, double *target,
				  char *err, size_t errlen);

/* The loss of the last step or forward pass, downloaded from the backend. */
int rt_transformer_last_loss(void *state, double *loss, char *err, size_t errlen);

#endif

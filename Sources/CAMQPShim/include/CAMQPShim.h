#ifndef BATON_CAMQPSHIM_H
#define BATON_CAMQPSHIM_H
/* Small non-variadic helpers around librabbitmq for Swift, which cannot call
   variadic C functions and reads C unions and method casts awkwardly. */

#if __has_include(<rabbitmq-c/amqp.h>)
#include <rabbitmq-c/amqp.h>
#include <rabbitmq-c/framing.h>
#else
#include <amqp.h>
#include <amqp_framing.h>
#endif

#include <stdint.h>

/* Logs in with SASL PLAIN, sending `connection_name` (shown in the management
   UI) and the consumer_cancel_notify and connection.blocked capabilities as
   client properties. */
amqp_rpc_reply_t camqp_login_plain(amqp_connection_state_t state,
                                   const char *vhost, int channel_max,
                                   int frame_max, int heartbeat,
                                   const char *user, const char *password,
                                   const char *connection_name);

/* What a frame (or a server-exception method) means to a client. */
typedef enum __attribute__((enum_extensibility(closed))) camqp_frame_kind {
  camqp_frame_other = 0,
  camqp_frame_basic_ack,
  camqp_frame_basic_nack,
  camqp_frame_basic_deliver,
  camqp_frame_basic_return,
  camqp_frame_basic_cancel,
  camqp_frame_channel_close,
  camqp_frame_connection_close,
  camqp_frame_connection_blocked,  /* the broker stopped reading publishes */
  camqp_frame_connection_unblocked /* ... and reads them again */
} camqp_frame_kind;

/* The decoded fields of interest; byte strings are borrowed from the
   connection's buffers and must be copied before they are released. */
typedef struct camqp_frame_info {
  camqp_frame_kind kind;
  amqp_channel_t channel;
  uint64_t delivery_tag;     /* ack, nack, deliver */
  int multiple;              /* ack, nack */
  int redelivered;           /* deliver */
  uint16_t reply_code;       /* channel.close, connection.close, return */
  amqp_bytes_t reply_text;   /* channel.close, connection.close, return,
                                connection.blocked (its reason) */
  amqp_bytes_t consumer_tag; /* deliver, cancel */
  amqp_bytes_t exchange;     /* deliver, return */
  amqp_bytes_t routing_key;  /* deliver, return */
} camqp_frame_info;

/* Classifies a frame read with amqp_simple_wait_frame*. */
camqp_frame_info camqp_frame_inspect(const amqp_frame_t *frame);

/* Classifies a method, e.g. the one in a server-exception amqp_rpc_reply_t. */
camqp_frame_info camqp_method_inspect(amqp_method_t method,
                                      amqp_channel_t channel);

/* Answers a broker's channel.close; the channel may then be reopened. */
int camqp_send_channel_close_ok(amqp_connection_state_t state,
                                amqp_channel_t channel);

/* Answers a broker's connection.close. */
int camqp_send_connection_close_ok(amqp_connection_state_t state);

#endif

#ifndef BATON_CRABBITMQ_SHIM_H
#define BATON_CRABBITMQ_SHIM_H
/* Debian 12 (librabbitmq 0.11) installs the headers flat in /usr/include;
   newer releases put them under rabbitmq-c/. */
#if __has_include(<rabbitmq-c/amqp.h>)
#include <rabbitmq-c/amqp.h>
#include <rabbitmq-c/framing.h>
#include <rabbitmq-c/tcp_socket.h>
#include <rabbitmq-c/ssl_socket.h>
#else
#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <amqp_ssl_socket.h>
#endif
#endif
